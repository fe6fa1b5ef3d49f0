"""Issue 10, points 7 and 9: every error a player can meet is worded by the page, in Chinese on the
Chinese page and in English (no Chinese punctuation) on the English one; players' texts name no rule
ids; the rules page has every rule of RULES.md, its combinations drawn as cards, and the scoring.

The list of codes comes from the server itself (protocol.py's ErrorCode, HttpErrorCode and
ReplayError, and every rule an IllegalMove can name in the engine and the server): a new code the
page has no words for fails here.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

from niugui.bots.levels import NAMES
from niugui.server.protocol import ErrorCode, HttpErrorCode, ReplayError

from .conftest import DESKTOP, ROOT, screenshot
from .pages import WAIT_MS, switch_lang, take_nickname

PHONE = {"width": 360, "height": 740}
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
CJK_PUNCTUATION = re.compile(r"[，。：；、（）！？「」【】《》\u3000-\u303f\uff00-\uffef]")
RULE_ID = re.compile(r"\bR\d{1,2}\b")


def illegal_rules() -> set[str]:
    """Every rule an illegal move can carry: each quoted rule id ("R27") in a module that builds an
    IllegalMove or an illegal_move fault (the engine, the server's commands) — a superset, so the page
    words all of them."""
    rules: set[str] = set()
    for path in (ROOT / "niugui").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "IllegalMove(" in text or '"illegal_move"' in text:
            for line in text.splitlines():
                if re.search(r"IllegalMove|illegal_move|\brule\b", line):
                    rules |= set(re.findall(r'"(R\d+)"', line))
    return rules


def server_errors() -> list[dict[str, Any]]:
    """What the server can send as an error: {code, rule?} for each."""
    replay_codes = typing.get_args(ReplayError.model_fields["code"].annotation)
    found = [{"code": c} for c in typing.get_args(ErrorCode) if c != "illegal_move"]
    found += [{"code": "illegal_move", "rule": r} for r in sorted(illegal_rules())]
    found += [{"code": c} for c in typing.get_args(HttpErrorCode) if c != "invalid_input"]
    found += [{"replay": c} for c in replay_codes]
    return found


RENDER_JS = """async (errors) => {
  const { errorText } = await import('/js/net.js');
  const { problemText } = await import('/js/replay.js');
  const { t } = await import('/js/i18n.js');
  return errors.map((e) => {
    const text = e.replay
      ? problemText({ detail: { code: e.replay, limit: 65536, field: 'actions[3]', index: 2, rule: 'R27' } })
      : errorText(e);
    const fallback = text === t('err_unknown') || /^(err|replay|illegal)_/.test(text);
    return { e, text, fallback };
  });
}"""


def test_there_are_server_codes_and_rules_to_word() -> None:
    errors = server_errors()
    assert {"R27", "R26", "R25", "R17", "R24"} <= illegal_rules()
    assert len(errors) > 30


def test_every_error_code_the_server_sends_is_worded_in_chinese_and_in_english(
    browser: Any, static_url: str
) -> None:
    errors = server_errors()
    page = browser.new_page()
    page.goto(f"{static_url}/index.html#/nothing")
    for lang in ("zh", "en"):
        page.evaluate("(lang) => localStorage.setItem('niugui.lang', lang)", lang)
        page.reload()
        for item in page.evaluate(RENDER_JS, errors):
            text, what = item["text"], item["e"]
            assert not item["fallback"], (lang, what, text)
            assert not RULE_ID.search(text), (lang, what, text)  # rule ids only on the rules page
            if lang == "zh":
                assert CJK.search(text), (what, text)
            else:
                assert not CJK.search(text), (what, text)
    page.close()


def test_real_errors_in_chinese_http_and_websocket(browser: Any, server: str) -> None:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(server + "/")
    page.click("[data-action=session-guest]")  # a blank nickname: 422 from the server's checks
    page.wait_for_selector("[data-role=sign-in] .error-text:not(:empty)", timeout=WAIT_MS)
    assert page.inner_text("[data-role=sign-in] .error-text") == "昵称：至少 1 个字"
    page.click("[data-tab=login]")
    page.fill("input[name=username]", "nobody_here")
    page.fill("input[name=password]", "not-the-password")
    page.click("[data-action=session-login]")
    page.wait_for_selector("[data-role=sign-in] .error-text:not(:empty)", timeout=WAIT_MS)
    assert page.inner_text("[data-role=sign-in] .error-text") == "用户名或密码不对"
    page.click("[data-tab=guest]")
    take_nickname(page, server, "错了")
    page.fill("form[data-role=join-code] input[name=code]", "zzzzzz")
    page.click("form[data-role=join-code] button[type=submit]")
    page.wait_for_selector("form[data-role=join-code] .error-text:not(:empty)", timeout=WAIT_MS)
    assert page.inner_text("form[data-role=join-code] .error-text") == "没有这张牌桌，或者房间码不对"
    screenshot(page, "error-zh-phone-360x740")
    switch_lang(page, "Hello")
    page.fill("form[data-role=join-code] input[name=code]", "zzzzzz")
    page.click("form[data-role=join-code] button[type=submit]")
    page.wait_for_function("() => document.querySelector('form[data-role=join-code] .error-text')"
                           ".textContent.startsWith('No such table')", timeout=WAIT_MS)
    context.close()


def english_texts(page: Any) -> str:
    return str(page.evaluate("() => document.body.innerText"))


def test_the_english_lobby_and_rules_have_no_chinese_punctuation(browser: Any, server: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(server + "/")
    page.evaluate("() => localStorage.setItem('niugui.lang', 'en')")
    take_nickname(page, server, "Ann")
    text = english_texts(page)
    assert not CJK_PUNCTUATION.search(text), CJK_PUNCTUATION.findall(text)
    page.click("[data-action=rules]")
    page.wait_for_selector("[data-role=rules]", timeout=WAIT_MS)
    text = english_texts(page)
    assert not CJK_PUNCTUATION.search(text), CJK_PUNCTUATION.findall(text)
    context.close()


def test_the_rules_page_has_every_rule_with_cards_and_the_scores(browser: Any, server: str) -> None:
    spec = Path("/work/shared/rules/RULES.md")  # the spec, where this machine has it: R1–R36
    wanted = re.findall(r"\*\*(R\d+)\b", spec.read_text(encoding="utf-8")) if spec.exists() else []
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    take_nickname(page, server, "学规则")
    page.click("[data-action=rules]")  # from the lobby
    page.wait_for_selector("[data-role=rules]", timeout=WAIT_MS)
    shown = page.evaluate("() => [...document.querySelectorAll('[data-rule]')].map((e) => e.dataset.rule)")
    assert shown == [f"R{n}" for n in range(1, 37)] and set(wanted) <= set(shown)
    for combo in ("R14", "R15", "R16", "R18", "R19", "R20", "R21", "R22", "R23"):
        assert page.locator(f"[data-rule={combo}] [data-card]").count() >= 2, combo
    assert page.locator("[data-role=score-table] tr").count() == 8
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "rules-phone-360x740")
    page.set_viewport_size(DESKTOP)
    screenshot(page, "rules-desktop-1280x800")
    page.set_viewport_size(PHONE)
    page.click("[data-action=lang]")
    page.wait_for_function("() => document.querySelector('[data-role=rules] h2').textContent === 'The cards'")
    page.click("[data-action=back]")
    page.wait_for_selector("[data-role=hello]", timeout=WAIT_MS)

    # from a table: its help box links to the rules page, and back returns to the seat
    page.fill("form[data-role=create-table] input[name=turn_seconds]", "60")
    page.click("button[data-action=create-table]")
    page.wait_for_selector(".table-screen[data-status]", timeout=WAIT_MS)
    page.click("[data-action=help]")
    page.click("[data-role=help] [data-action=rules]")
    page.wait_for_selector("[data-role=rules]", timeout=WAIT_MS)
    page.click("[data-action=back]")
    page.wait_for_selector(".table-screen[data-status]", timeout=WAIT_MS)
    context.close()


def test_the_table_form_offers_every_bot_level_in_words(browser: Any, server: str) -> None:
    """Every level a table can be filled with (the registry's levels, ``learned`` included) is
    offered when creating a table, named in words in both languages, never as a raw key."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    take_nickname(page, server, "选等级")  # "机器人" is reserved (issue 33)
    for hello in ("你好", "Hello"):
        if hello == "Hello":
            switch_lang(page, hello)
        options = page.locator("form[data-role=create-table] select[name=bot_level] option")
        values = options.evaluate_all("os => os.map((o) => o.value)")
        texts = options.all_inner_texts()
        assert sorted(values) == sorted(NAMES), values
        assert all(text and not text.startswith("bot_") for text in texts), texts
        assert len(set(texts)) == len(texts), texts
    context.close()
