"""Table affinity on the page (issue 32, docs/scaling.md): the connection (net.js) moves once to the
node a watch's or sit's answer names as the table's owner, keeps the old socket until the table is
rejoined on the new one, never moves twice for one table and owner nor to the node it is on, and after
a failover forgets a hinted node that no longer lets it in and follows the new owner once.

The page's own module against a stand-in WebSocket (the server's side is tests/cluster/
test_cluster_affinity.py): every socket it opens, what it sends and whether the page closed it."""

from __future__ import annotations

from typing import Any

SCRIPT = """async () => {
  const opened = [];
  class FakeSocket {
    constructor(url) {
      this.url = url; this.readyState = 0; this.sent = []; this.closed = false;
      opened.push(this);
      setTimeout(() => { this.readyState = 1; this.onopen && this.onopen(); }, 0);
    }
    send(text) { this.sent.push(JSON.parse(text)); }
    close() {
      if (this.closed) return;
      this.closed = true; this.readyState = 3;
      setTimeout(() => this.onclose && this.onclose({ code: 1000 }), 0);
    }
    deliver(msg) { this.onmessage({ data: JSON.stringify(msg) }); }
    answer(data) {
      const last = this.sent[this.sent.length - 1];
      this.deliver({ type: 'ack', id: last.id, seq: 1, data });
    }
  }
  FakeSocket.OPEN = 1;
  window.WebSocket = FakeSocket;
  localStorage.setItem('niugui.token', 'tok');
  const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
  const until = async (f) => { for (let i = 0; i < 400 && !f(); i++) await tick(10); return f(); };
  const account = { id: 'a', nickname: 'n' };
  const welcome = (node) => ({ type: 'welcome', protocol: 2, account, seats: [], node });
  const { Connection } = await import('/js/net.js');
  const welcomes = [];
  const onMessage = (m) => m.type === 'welcome' && welcomes.push(m.node);
  const conn = new Connection({ onMessage, onStatus: () => {} });
  const log = {};
  conn.start();
  await tick(5);
  opened[0].deliver(welcome('n0'));
  // a sit answered by n0 for n1's table: one socket to n1, the old one kept meanwhile
  const sat = conn.request('sit', { table: 't1', seat: 1 });
  opened[0].answer({ seat: 1, node: 'n1' });
  log.sat = (await sat).data;
  await tick(5);
  log.urls1 = opened.map((s) => s.url.replace(/^ws:\\/\\/[^/]+/, ''));
  opened[1].deliver(welcome('n1'));
  log.oldOpenAfterWelcome = !opened[0].closed;
  log.events = 0;
  const rejoin = conn.request('watch', { table: 't1', last_seq: 1 });
  log.rejoinOnNew = opened[1].sent.some((m) => m.type === 'watch');
  opened[1].answer({ seat: 1 });
  await rejoin;
  log.oldClosedAfterRejoin = await until(() => opened[0].closed);
  // the same hint again (a front without the route, or the page asking again): no second move
  const again = conn.request('watch', { table: 't1' });
  opened[1].answer({ seat: 1, node: 'n1' });
  await again;
  const other = conn.request('watch', { table: 't2' });
  opened[1].answer({ seat: null, node: 'n1' }); // the node it is on
  await other;
  await tick(20);
  log.socketsAfterRepeats = opened.length;
  // failover: n1 dies; the page tries n1 once, then the front's choice, then the new owner once
  opened[1].closed = true; opened[1].onclose({ code: 1006 });
  await until(() => opened.length === 3);
  log.retryUrl = opened[2].url.replace(/^ws:\\/\\/[^/]+/, '');
  opened[2].closed = true; opened[2].onclose({ code: 1006 }); // refused: never welcomed
  await until(() => opened.length === 4);
  log.thenUrl = opened[3].url.replace(/^ws:\\/\\/[^/]+/, '');
  await tick(5);
  opened[3].deliver(welcome('n2'));
  const back = conn.request('watch', { table: 't1', last_seq: 5 });
  opened[3].answer({ seat: 1, node: 'n0' });
  await back;
  await tick(5);
  log.movedTo = opened.length === 5 ? opened[4].url.replace(/^ws:\\/\\/[^/]+/, '') : null;
  log.welcomes = welcomes;
  conn.stop();
  return log;
}"""


def test_the_page_moves_once_to_the_tables_owner_and_follows_it_after_a_failover(
    browser: Any, static_url: str
) -> None:
    page = browser.new_page()
    page.goto(f"{static_url}/index.html#/nothing")
    log = page.evaluate(SCRIPT)
    page.close()
    assert log["sat"] == {"seat": 1, "node": "n1"}  # the caller gets its answer as it came
    assert log["urls1"] == ["/ws", "/ws?node=n1"]
    assert log["oldOpenAfterWelcome"]  # kept until the table is rejoined: the seat never goes offline
    assert log["rejoinOnNew"] and log["oldClosedAfterRejoin"]
    assert log["socketsAfterRepeats"] == 2  # no loop: one move per table and owner, none to itself
    assert log["retryUrl"] == "/ws?node=n1"
    assert log["thenUrl"] == "/ws"  # the hinted node did not let it in: forgotten
    assert log["movedTo"] == "/ws?node=n0"  # the new owner, once
    assert log["welcomes"] == ["n0", "n1", "n2"]
