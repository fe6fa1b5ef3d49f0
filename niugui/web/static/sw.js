// The service worker: the page's shell (index.html and this version's files) kept in a cache, so the
// page opens at once and even offline; the game itself (/api, /ws) always goes to the network.
// The server writes this version and its files in (niugui/server/static.py).

const VERSION = "__VERSION__";
const CACHE = `niugui-${VERSION}`;
const SHELL = ["./", "__ASSETS__"];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith("niugui-") && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== location.origin || /^\/(api|ws|healthz|metrics)\b/.test(url.pathname)) return;
  if (request.mode === "navigate") {
    // the shell from the cache at once; a fresh one from the network when there is no cached copy
    event.respondWith(caches.match("./").then((hit) => hit || fetch(request)));
    return;
  }
  event.respondWith(caches.match(request).then((hit) => hit || fetch(request)));
});
