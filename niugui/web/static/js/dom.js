// The page's DOM helpers, one copy for every screen: el(tag, class, text) and button(...).

/**
 * A new element: el("div", "panel"), el("b", "", "3"). A text of "" (or null/undefined) sets none;
 * numbers are shown as they are (el("b", "", 0) shows 0).
 */
export function el(tag, cls = "", text = "") {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== "" && text !== null && text !== undefined) e.textContent = String(text);
  return e;
}

/** A button with data-action (what the tests click) calling onClick: button("btn", "Play", "play", fn). */
export function button(cls, label, action, onClick) {
  const b = el("button", cls, label);
  b.type = "button";
  if (action) b.dataset.action = action;
  if (onClick) b.addEventListener("click", onClick);
  return b;
}

/** An SVG element with attributes (charts): svgEl("circle", { cx: 4, cy: 4, r: 2 }). */
export function svgEl(tag, attrs = {}) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

/** Apply a style sheet (a URL) once; resolves when it applies (or failed to load: the page goes on). */
export function styleSheet(href) {
  const found = [...document.styleSheets].some((sheet) => sheet.href === href);
  if (found) return Promise.resolve();
  return new Promise((done) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    link.onload = link.onerror = () => done();
    document.head.append(link);
  });
}
