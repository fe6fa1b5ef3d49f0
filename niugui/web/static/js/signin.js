// The first screen: take a nickname (guest), or sign in or register. Only what it needs loads
// with the page (dom, i18n, net); the lobby and the rest come after (app.js).

import { el } from "./dom.js";
import { t } from "./i18n.js";
import { api, session } from "./net.js";

export function field(labelText, input) {
  const row = el("div", "row");
  const label = el("label", "", labelText);
  row.append(label, input);
  return row;
}

export function input(type, name, placeholder = "") {
  const i = el("input");
  i.type = type;
  i.name = name;
  i.placeholder = placeholder;
  return i;
}

/** The sign-in panel: guest nickname, or username and password (sign in / register). */
export function signInPanel(onSession) {
  const panel = el("div", "panel");
  panel.dataset.role = "sign-in";
  const tabs = el("div", "tabs");
  const modes = ["guest", "login", "register"];
  const labels = { guest: t("play_as_guest"), login: t("sign_in"), register: t("register") };
  let mode = "guest";
  const body = el("div");
  const err = el("div", "error-text");
  const draw = () => {
    tabs.innerHTML = "";
    for (const m of modes) {
      const b = el("button", m === mode ? "on" : "", labels[m]);
      b.type = "button";
      b.dataset.tab = m;
      b.addEventListener("click", () => {
        mode = m;
        err.textContent = "";
        draw();
      });
      tabs.append(b);
    }
    body.innerHTML = "";
    const form = el("form");
    const nick = input("text", "nickname", t("nickname_ph"));
    nick.maxLength = 24;
    const user = input("text", "username");
    user.autocomplete = "username";
    const pass = input("password", "password");
    pass.autocomplete = mode === "register" ? "new-password" : "current-password";
    if (mode !== "guest") form.append(field(t("username"), user), field(t("password"), pass));
    if (mode !== "login") form.append(field(t("nickname"), nick));
    const submit = el("button", "btn", mode === "guest" ? t("enter") : labels[mode]);
    submit.type = "submit";
    submit.dataset.action = `session-${mode}`;
    form.append(submit);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      err.textContent = "";
      submit.disabled = true;
      try {
        let answer;
        if (mode === "guest") answer = await api("POST", "/api/guest", { nickname: nick.value.trim() });
        else if (mode === "login") answer = await api("POST", "/api/login", { username: user.value.trim(), password: pass.value });
        else {
          const body = { username: user.value.trim(), password: pass.value };
          if (nick.value.trim()) body.nickname = nick.value.trim();
          answer = await api("POST", "/api/register", body);
        }
        session.save(answer.token, answer.account);
        onSession(answer.account);
      } catch (error) {
        err.textContent = error.message;
      } finally {
        submit.disabled = false;
      }
    });
    body.append(form);
    setTimeout(() => (mode === "guest" ? nick : user).focus(), 0);
  };
  draw();
  const hero = el("div", "hero");
  const fan = el("div", "fan");
  import("./cards.js").then(({ cardElement }) => {
    for (const code of ["S2", "S3", "BJ", "RJ"]) fan.append(cardElement(code, { attr: "demo" })); // after first paint
  });
  hero.append(fan, el("h1", "", t("title")), el("p", "", t("tagline")));
  panel.append(tabs, body, err);
  const wrap = el("div");
  wrap.append(hero, panel);
  return wrap;
}

