"""A failover is a pause on the page, not an error (issue 32): a request refused ``moving`` (on a
cluster, the table is between two nodes) is sent again by the connection (net.js) until it is
answered — so a page whose node died rejoins its table by itself — while every other refusal is
the caller's at once, as before. The page's own module against a stand-in WebSocket (the server's
side: tests/cluster/test_cluster_failover.py)."""

from __future__ import annotations

from typing import Any

SCRIPT = """async () => {
  const opened = [];
  class FakeSocket {
    constructor(url) {
      this.url = url; this.readyState = 0; this.sent = [];
      opened.push(this);
      setTimeout(() => { this.readyState = 1; this.onopen && this.onopen(); }, 0);
    }
    send(text) { this.sent.push(JSON.parse(text)); }
    close() { this.readyState = 3; }
    deliver(msg) { this.onmessage({ data: JSON.stringify(msg) }); }
    last() { return this.sent[this.sent.length - 1]; }
    refuse(code) { this.deliver({ type: 'error', id: this.last().id, code, message: 'no' }); }
    answer(data) { this.deliver({ type: 'ack', id: this.last().id, seq: 1, data }); }
  }
  FakeSocket.OPEN = 1;
  window.WebSocket = FakeSocket;
  localStorage.setItem('niugui.token', 'tok');
  const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
  const until = async (f) => { for (let i = 0; i < 500 && !f(); i++) await tick(10); return f(); };
  const { Connection } = await import('/js/net.js');
  const conn = new Connection({ onMessage: () => {}, onStatus: () => {} });
  conn.start();
  await tick(5);
  const ws = opened[0];
  ws.deliver({ type: 'welcome', protocol: 2, account: { id: 'a', nickname: 'n' }, seats: [] });
  const log = {};
  const watched = conn.request('watch', { table: 't1', last_seq: 7 });
  const watches = () => ws.sent.filter((m) => m.type === 'watch');
  ws.refuse('moving');
  await until(() => watches().length === 2);
  ws.refuse('moving');
  await until(() => watches().length === 3);
  ws.answer({ seat: 2 });
  log.watched = (await watched).data;
  log.watches = watches().map((m) => [m.table, m.last_seq]);
  const refused = conn.request('sit', { table: 't1', seat: 2 });
  ws.refuse('seat_taken');
  try { await refused; log.sit = 'answered'; } catch (error) { log.sit = error.code; }
  await tick(400);
  log.sits = ws.sent.filter((m) => m.type === 'sit').length;
  conn.stop();
  return log;
}"""


def test_a_request_refused_moving_is_sent_again_until_answered_and_no_other(
    browser: Any, static_url: str
) -> None:
    page = browser.new_page()
    page.goto(f"{static_url}/index.html#/nothing")
    log = page.evaluate(SCRIPT)
    page.close()
    assert log["watched"] == {"seat": 2}  # the caller sees only the answer
    assert log["watches"] == [["t1", 7]] * 3  # the same request, again
    assert log["sit"] == "seat_taken" and log["sits"] == 1  # any other refusal: the caller's, once
