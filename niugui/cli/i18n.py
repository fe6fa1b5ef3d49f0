"""The terminal game's words, in Chinese (the default) and English, named as in the glossary.

>>> tr("zh", "passes", who="下家"), tr("en", "passes", who="Right")
('下家过', 'Right: pass')
>>> tr("en", "seat_name", seat=2)
'seat 2'
>>> tr("en", "your_hand", n=1), tr("en", "your_hand", n=2)
('Your hand (1 card): ', 'Your hand (2 cards): ')
>>> kind_name("zh", "full_house"), place_name("zh", 0), join("zh", ["下家", "上家"]), join("en", ["A", "B"])
('三带对', '上游', '下家、上家', 'A and B')
>>> outcome_text("en", "double_caught")
'Double Niugui caught (活抓双牛) — -6 for the Double Niugui, +2 each for the other three'
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
    # key: (zh, en). In English, "{s}" is "" when the value n is 1 and "s" otherwise (plurals).
    "title": ("河池牛鬼 — 你对三个机器人", "Hechi Niugui — you against three bots"),
    "game_no": ("第 {n} 局", "Game {n}"),
    "you_are": ("你坐座位 {seat}。出牌顺序：逆时针，座位 0→1→2→3。",
                "You sit at seat {seat}. Play goes counter-clockwise: seat 0→1→2→3."),
    "seat_name": ("座位{seat}", "seat {seat}"),
    "who": ("{rel}（座位{seat}）", "{rel} (seat {seat})"),
    "at_table": ("机器人：{seats}", "Bots: {seats}"),
    "bot_label": ("机器人 {spec}", "bot {spec}"),
    "col_seat": ("座位", "Seat"),
    "col_player": ("玩家", "Player"),
    "col_bot": ("机器人", "Bot"),
    "col_cards": ("张数", "Cards"),
    "col_marks": ("标记", "Marks"),
    "col_place": ("名次", "Place"),
    "col_trick": ("本轮", "This trick"),
    "col_side": ("阵营", "Side"),
    "col_change": ("本局", "This game"),
    "col_change_short": ("本局", "Game"),
    "col_total": ("总分", "Total"),
    "col_hand": ("剩余手牌", "Cards left"),
    "col_dealt": ("发到的牌", "Dealt"),
    "your_hand": ("你的手牌（{n} 张）：", "Your hand ({n} card{s}): "),
    "to_beat": ("要压：{who}的{kind} {cards}", "to beat: {kind} {cards} from {who}"),
    "free_lead": ("{who}有任意出牌权", "free lead: {who}"),
    "turn": ("轮到{who}", "to play: {who}"),
    "your_turn": ("轮到你了", "Your turn"),
    "plays": ("{who}出 {kind} {cards}", "{who}: {kind} {cards}"),
    "passes": ("{who}过", "{who}: pass"),
    "pass_word": ("过", "pass"),
    "escapes": ("{who}逃跑了（R35）", "{who} escaped (逃跑, R35)"),
    "trick_won": ("——这一轮归{who}，由{who}出牌——", "—— {who} won the trick; next lead: {who} ——"),
    "trick_won_out": ("——这一轮归{who}，{who}已出完，由{lead}接风出牌（R29）——",
                      "—— {who} won the trick but went out: the lead passes on to {lead} (接风, R29) ——"),
    "goes_out": ("{who}出完了：{place}", "{who} went out {ordinal} ({place})"),
    "mark_shown": ("{who}亮出 {cards} 标记（R11）", "{who}: shows the {cards} mark (R11)"),
    "prompt": ("出牌（如 s3 s2、♠3、黑桃3；p 过，h 提示，q 退出）> ",
               "Your play (s3 s2, ♠3, 10h; p pass, h hint, q quit)> "),
    "hint_title": ("你可以出（输入编号或牌）：", "Your legal plays (type a number or the cards):"),
    "hint_more": ("（+N）：同类还有 N 手，输入 more 全部列出",
                  "(+N): N more like it; type more to list every play"),
    "hint_cut": ("还有 {n} 类没列出，输入 more 全部列出",
                 "{n} more kind{s} not listed; type more to list every play"),
    "hint_pass": ("p = 过", "p = pass"),
    "hint_only_pass": ("你没有压得过的牌（R17、R24）：输入 p 过",
                       "Nothing you hold beats it (R17, R24): type p to pass"),
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
    "why_R26": ("本局第一手牌必须包含方块4（R26）", "the first play of the game must contain ♦4 (R26)"),
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
    "escape_cancelled": ("继续游戏。（不扣分离开：按 Ctrl-D 保存本局，以后 niugui play --resume 接着打）",
                         "Back to the game. (To leave without losing points: Ctrl-D saves the game, "
                         "and niugui play --resume continues it.)"),
    "suspended": ("输入已结束：本局没有算逃跑，已保存到 {path}",
                  "Input ended: the game is not counted as an escape; it is saved in {path}"),
    "resume_hint": ("接着打：niugui play --resume {path}", "To continue: niugui play --resume {path}"),
    "resumed": ("接着打第 {game} 局，已走 {n} 步：{path}",
                "Continuing game {game} after {n} action{s}: {path}"),
    "side_black": ("你是黑方 · 队友持{card}（R10）",
                   "Black side (you): your partner holds the {card_en} (R10)"),
    "side_double": ("你是双牛鬼 · 一打三（R10）", "Double Niugui (you): one against three (R10)"),
    "side_red": ("你是红方 · 对手持牛鬼3和牛鬼2，队友未知（R10）",
                 "Red side (you): vs the black cards, partner unknown (R10)"),
    "game_over": ("本局结束", "Game over"),
    "winner": ("胜方：{side} — {seats}", "Winner: {side} — {seats}"),
    "no_winner": ("不分胜负：平局", "No winner: a draw"),
    "escaped_by": ("{who}逃跑，本局立即结束", "{who} escaped: the game ended at once"),
    "outcome": ("结果：{outcome}", "Outcome: {outcome}"),
    "you_won": ("你赢了 {change}", "You won {change}"),
    "you_lost": ("你输了 {change}", "You lost {change}"),
    "you_draw": ("不输不赢：你的分数不变", "You drew: your score is unchanged"),
    "you_escaped": ("你逃跑了 {change}", "You escaped {change}"),
    "you_unscored": ("{who}逃跑：本局你不计分", "{who} escaped: no score for you this game"),
    "mode": ("模式：{mode}", "Mode: {mode}"),
    "hands_title": ("亮牌", "All hands"),
    "dealt_title": ("发到的牌", "Dealt"),
    "left_title": ("剩余手牌", "Cards left"),
    "totals_title": ("总分（共 {n} 局）", "Running totals after {n} game{s}"),
    "saved": ("牌谱已保存：{path}", "Record saved: {path}"),
    "not_saved": ("牌谱没能保存：{error}", "The record could not be saved: {error}"),
    "saved_dir": ("所有牌谱在：{path}", "All records are in: {path}"),
    "replay_hint": ("回放：niugui replay {path}", "Replay: niugui replay {path}"),
    "next_game": ("再来一局？[Y/n] ", "Another game? [Y/n] "),
    "flip": ("翻牌：{card}，点数 {value}。从座位0起按出牌顺序数 {value} 个座位，"
             "数到座位{seat}：{who}先抓牌（R8）",
             "Card flip: {card}, worth {value}. Counting {value} seats in play order from seat 0 ends "
             "at seat {seat}: the first drawer is {who} (R8)"),
    "first_drawer_prev": ("先抓牌：{who}（上局上游，R8）", "First drawer: {who}, last game's 1st out (R8)"),
    "leads_first": ("{who}有方块4，先出（R26）", "First lead: {who}, the holder of ♦4 (R26)"),
    "bye": ("再见！", "Goodbye!"),
    "none": ("—", "—"),
    "labelled": ("{who}：", "{who}: "),
    "escaped": ("逃跑", "escaped"),
}

OUTCOME_TEXT: dict[str, tuple[str, str]] = {
    "sweep": ("牛鬼完胜（胜方每人 +2，负方每人 -2）",
              "sweep (牛鬼完胜) — the winners +2 each, the losers -2 each"),
    "win": ("牛鬼小胜（胜方每人 +1，负方每人 -1）",
            "win (牛鬼小胜) — the winners +1 each, the losers -1 each"),
    "draw": ("免炒（平局，不计分）", "draw (免炒) — no score changes"),
    "double_win": ("双牛成功（双牛鬼 +9，另外三家每人 -3）",
                   "Double Niugui wins (双牛成功) — +9 for the Double Niugui, -3 each for the other three"),
    "double_draw": ("双牛逃跑（平局，不计分）",
                    "Double Niugui gets away (双牛逃跑) — a draw, no score changes"),
    "double_caught": ("活抓双牛（双牛鬼 -6，另外三家每人 +2）",
                      "Double Niugui caught (活抓双牛) — -6 for the Double Niugui, "
                      "+2 each for the other three"),
    "escape": ("逃跑（逃跑的一家扣 9 分，其他人不计分）",
               "escape (逃跑) — -9 for the seat that left, no other score changes"),
}
"""Each outcome (RECORD.md) by name with what it scores (R33–R35), for the game-over screen."""

OUTCOME_PLAIN: dict[str, tuple[str, str]] = {
    "sweep": ("胜方拿下上游和二游", "the winners went out 1st and 2nd"),
    "win": ("胜方拿下上游和三游", "the winners went out 1st and 3rd"),
    "draw": ("上游的队友最后才走完", "the 1st out's partner went out last"),
    "double_win": ("双牛鬼第一个走完", "the Double Niugui went out first"),
    "double_draw": ("双牛鬼第二或第三个走完", "the Double Niugui went out 2nd or 3rd"),
    "double_caught": ("另外三家先走完", "the other three went out first"),
    "escape": ("有人中途离开了牌局", "someone left the game before it ended"),
}
"""What each outcome means, in plain words beside its traditional name (R33–R35)."""

ORDINAL_EN = ("first", "second", "third", "last")

def tr(lang: str, key: str, **values: Any) -> str:
    """The text ``key`` in ``lang`` (``zh`` or ``en``), with ``values`` filled in."""
    zh, en = STRINGS[key]
    if lang == "en":
        return en.format(s="" if values.get("n") == 1 else "s", **values)
    return zh.format(**values)


def kind_name(lang: str, kind: str) -> str:
    """A combination's name (单牌, full house …), as in :mod:`niugui.cli.text`."""
    return text.kind_name(kind, "en" if lang == "en" else "zh")


def outcome_text(lang: str, outcome: str) -> str:
    """An outcome by name and what it scores; in English the Chinese name stands beside the English."""
    zh, en = OUTCOME_TEXT[outcome]
    return en if lang == "en" else zh


def outcome_plain(lang: str, outcome: str) -> str:
    """What an outcome means, in plain words: ``outcome_plain("zh", "sweep")`` is 胜方拿下上游和二游."""
    zh, en = OUTCOME_PLAIN[outcome]
    return en if lang == "en" else zh


def side_name(lang: str, side: str) -> str:
    """黑方 / 红方 / 双牛鬼 (R10)."""
    return text.side_name(side, "en" if lang == "en" else "zh")


def ordinal(lang: str, place: int) -> str:
    """A finish place as the English ordinal (``second``); in Chinese the place name (二游)."""
    return ORDINAL_EN[place] if lang == "en" else text.place_name(place, "zh")


def join(lang: str, names: list[str]) -> str:
    """Names listed as a reader expects: 甲、乙 in Chinese; "A and B", "A, B and C" in English."""
    if lang != "en":
        return "、".join(names)
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]


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
