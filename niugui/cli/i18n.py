"""The terminal game's words, in Chinese (the default) and English, named as in the glossary.

>>> tr("zh", "passes", who="下家"), tr("en", "passes", who="Right")
('下家过', 'Right: pass')
>>> tr("en", "seat_name", seat=2)
'seat 2'
>>> kind_name("zh", "full_house"), outcome_name("en", "double_caught"), place_name("zh", 0)
('三带对', '活抓双牛 Double Niugui caught', '上游')
"""

from __future__ import annotations

from typing import Any

from . import text

LANGS = ("zh", "en")

# Who a seat is, seen from the human's seat: play goes counter-clockwise (R7), so the seat after
# yours sits on your right (下家), then across (对家), then on your left (上家).
RELATIVE_ZH = ("你", "下家", "对家", "上家")
RELATIVE_EN = ("You", "Right", "Across", "Left")

# Why a play is refused, by the rule it breaks (IllegalMove.rule); the engine's own message follows.
RULE_ZH = {
    "R1": "同一张牌只能写一次",
    "R6": "不认识的牌",
    "R17": "散牌只能压同类型、更大的牌，没有炸弹",
    "R24": "顺牌只能压更大的顺牌；顺牌和散牌互不相压",
    "R25": "这些牌不成牌型",
    "R26": "第一手牌必须包含方块4",
    "R27": "只能在自己的回合出自己手里的牌；有任意出牌权时不能过",
    "R31": "这局已经结束",
}
RULE_EN = {
    "R1": "each card can be listed once",
    "R6": "not a card",
    "R17": "a loose combination beats only the same type, higher; there are no bombs",
    "R24": "five-card combinations beat only lower five-card combinations, never loose ones",
    "R25": "these cards are not a combination",
    "R26": "the first play of the game must contain ♦4",
    "R27": "play only cards you hold, on your turn; you may not pass on a free lead",
    "R31": "the game is over",
}

STRINGS: dict[str, tuple[str, str]] = {
    # key: (zh, en)
    "title": ("河池牛鬼 — 你对三个机器人", "Hechi Niugui — you against three bots"),
    "game_no": ("第 {n} 局", "Game {n}"),
    "you_are": ("你坐座位 {seat}。出牌顺序：逆时针，座位 0→1→2→3。",
                "You sit at seat {seat}. Play goes counter-clockwise: seat 0→1→2→3."),
    "seat_name": ("座位{seat}", "seat {seat}"),
    "who": ("{rel}（座位{seat}）", "{rel} (seat {seat})"),
    "bot_label": ("机器人 {spec}", "bot {spec}"),
    "col_seat": ("座位", "Seat"),
    "col_player": ("玩家", "Player"),
    "col_cards": ("张数", "Cards"),
    "col_marks": ("标记", "Marks"),
    "col_place": ("名次", "Place"),
    "col_trick": ("本轮", "This trick"),
    "col_change": ("本局", "This game"),
    "col_total": ("总分", "Total"),
    "col_hand": ("剩余手牌", "Cards left"),
    "col_dealt": ("发到的牌", "Dealt"),
    "your_hand": ("你的手牌（{n} 张）：", "Your hand ({n} cards): "),
    "to_beat": ("要压：{who}的{kind} {cards}", "To beat: {who}'s {kind} {cards}"),
    "free_lead": ("{who}有任意出牌权", "free lead: {who}"),
    "turn": ("轮到{who}", "to play: {who}"),
    "your_turn": ("轮到你了", "Your turn"),
    "plays": ("{who}出 {kind} {cards}", "{who}: {kind} {cards}"),
    "passes": ("{who}过", "{who}: pass"),
    "pass_word": ("过", "pass"),
    "escapes": ("{who}逃跑了", "{who}: escapes (R35)"),
    "trick_won": ("—— 这一轮归{who}，由{who}出牌 ——", "—— {who} takes the trick and leads ——"),
    "trick_won_out": ("—— 这一轮归{who}，{who}已出完，{lead}接风出牌（R29）——",
                      "—— {who} takes the trick but is out: {lead} takes over the lead (接风, R29) ——"),
    "goes_out": ("{who}出完了：{place}", "{who}: out, {place}"),
    "mark_shown": ("{who}亮出 {cards} 标记（R11）", "{who}: shows the {cards} mark (R11)"),
    "prompt": ("出牌（如 s3 s2、♠3、黑桃3；p 过，h 提示，q 退出）> ",
               "Your play (e.g. s3 s2, ♠3, 10h; p pass, h hint, q quit)> "),
    "hint_title": ("你可以出（输入编号或牌）：", "Your legal plays (type a number or the cards):"),
    "hint_pass": ("p = 过", "p = pass"),
    "hint_none": ("你没有压得过的牌（R17、R24）", "Nothing you hold beats it (R17, R24)"),
    "hint_no_pass": ("你有任意出牌权，不能过（R27）", "You have the free lead and may not pass (R27)"),
    "refused": ("不行：{reason}", "Not allowed: {reason}"),
    "bad_number": ("没有第 {n} 个提示（共 {total} 个）", "there is no hint {n} (there are {total})"),
    "empty": ("请输入要出的牌，或 p 过、h 提示、q 退出",
              "Type the cards to play, or p to pass, h for a hint, q to quit"),
    "why_R6": ("不认识的牌：{token!r}（R6：牌写作 S3、D4、HT、BJ、♠3、黑桃10、10h）",
               "not a card: {token!r} (R6: write cards like S3, D4, HT, BJ, ♠3, 黑桃10, 10h)"),
    "why_R1": ("同一张牌写了两次（R1：每张牌只有一张）",
               "a card is listed twice (R1: each card exists once)"),
    "why_R25": ("{cards} 不成牌型（R25）", "{cards} is not a combination (R25)"),
    "why_R26": ("全局第一手牌必须包含方块4（R26）", "the first play of the game must contain ♦4 (R26)"),
    "why_kind": ("{mine}不能压{theirs}（R17：散牌只能压同类型的牌，没有炸弹）",
                 "a {mine} cannot be played on a {theirs} "
                 "(R17: a loose combination beats only the same type)"),
    "why_group": ("{mine}不能压{theirs}（R24：顺牌和散牌互不相压）",
                  "a {mine} cannot be played on a {theirs} "
                  "(R24: five-card and loose combinations never beat each other)"),
    "why_lower": ("{mine} {cards} 压不过{theirs} {current}（{rule}）",
                  "{mine} {cards} does not beat {theirs} {current} ({rule})"),
    "not_in_hand": ("你手里没有 {cards}（R27）", "you do not hold {cards} (R27)"),
    "no_pass_on_lead": ("你有任意出牌权，必须出牌（R27：任意出牌权时不能过）",
                        "you have the free lead and must play (R27: no pass on a free lead)"),
    "confirm_escape": ("要逃跑吗？逃跑扣 9 分，本局立即结束（R35）[y/N] ",
                       "Escape? You lose 9 points and the game ends at once (R35) [y/N] "),
    "escape_cancelled": ("继续游戏。", "Back to the game."),
    "game_over": ("本局结束：{outcome}", "Game over: {outcome}"),
    "mode": ("模式：{mode}；黑方：{black}", "Mode: {mode}; Black side: {black}"),
    "hands_title": ("亮牌", "All hands"),
    "totals_title": ("总分（{games} 局）", "Running totals (games: {games})"),
    "saved": ("牌谱已保存：{path}", "Record saved: {path}"),
    "not_saved": ("牌谱没能保存：{error}", "The record could not be saved: {error}"),
    "saved_dir": ("所有牌谱在：{path}", "All records are in: {path}"),
    "replay_hint": ("回放：niugui replay {path}", "Replay: niugui replay {path}"),
    "next_game": ("再来一局？[Y/n] ", "Another game? [Y/n] "),
    "flip": ("翻牌：{card}，数 {value}（从座位0数起，逆时针）→ {who}先抓牌（R8）",
             "Card flip: {card} counts {value} (seat 0 counts one, in play order) → "
             "first drawer: {who} (R8)"),
    "first_drawer_prev": ("上局上游{who}先抓牌（R8）", "First drawer: {who}, last game's 1st out (R8)"),
    "leads_first": ("{who}有方块4，先出（R26）", "♦4 leads (R26): {who}"),
    "bye": ("再见！", "Goodbye!"),
    "none": ("—", "—"),
    "escaped": ("逃跑", "escaped"),
}


def tr(lang: str, key: str, **values: Any) -> str:
    """The text ``key`` in ``lang`` (``zh`` or ``en``), with ``values`` filled in."""
    zh, en = STRINGS[key]
    return (en if lang == "en" else zh).format(**values)


def kind_name(lang: str, kind: str) -> str:
    """A combination's name (单牌, full house …), as in :mod:`niugui.cli.text`."""
    return text.kind_name(kind, "en" if lang == "en" else "zh")


def outcome_name(lang: str, outcome: str) -> str:
    """An outcome's name (牛鬼完胜 …); in English the Chinese name comes first, as players say it."""
    return text.outcome_name(outcome, "both" if lang == "en" else "zh")


def place_name(lang: str, place: int) -> str:
    """A finish place, 0-based: 上游 二游 三游 下游 (R30)."""
    return text.place_name(place, "en" if lang == "en" else "zh")


def mode_name(lang: str, mode: str) -> str:
    """二对二 / 一打三 (R10)."""
    return text.mode_name(mode, "en" if lang == "en" else "zh")


def relative_name(lang: str, offset: int) -> str:
    """Who sits ``offset`` seats after you in play order: you, 下家 (right), 对家, 上家 (left)."""
    return (RELATIVE_EN if lang == "en" else RELATIVE_ZH)[offset % 4]


def rule_reason(lang: str, rule: str, message: str) -> str:
    """Why an action was refused: the rule's gist in ``lang``, then the engine's message."""
    gist = (RULE_EN if lang == "en" else RULE_ZH).get(rule)
    return f"{rule} {gist} — {message}" if gist else message
