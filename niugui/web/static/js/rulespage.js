// The rules page (规则 / Rules): every rule of RULES.md (R1–R36) in players' words, in Chinese and
// English, each combination drawn as cards, and the scoring table. Each rule is an anchor
// (#/rules/R27): the one place where players see rule ids.

import { cardElement } from "./cards.js";
import { button, el } from "./dom.js";
import { getLang, t } from "./i18n.js";

/** [id, zh, en, cards?] — cards: example combinations, each a list of card codes. */
const SECTIONS = [
  {
    zh: "牌",
    en: "The cards",
    rules: [
      ["R1", "一副 54 张牌：13 种点数各 4 种花色，加小王和大王。", "One 54-card deck: 13 ranks in 4 suits, plus the small joker (小王) and the big joker (大王)."],
      ["R2", "花色从小到大：方块 ♦ < 梅花 ♣ < 红心 ♥ < 黑桃 ♠。", "Suits from low to high: ♦ diamonds < ♣ clubs < ♥ hearts < ♠ spades.", [["D9", "C9", "H9", "S9"]]],
      ["R3", "点数从小到大：4 5 6 7 8 9 10 J Q K A 2 3，两张王比所有点数都大，小王 < 大王。", "Ranks from low to high: 4 5 6 7 8 9 10 J Q K A 2 3; both jokers are above every rank, the small one below the big one.", [["D4", "C7", "HJ", "SA", "D2", "C3", "BJ", "RJ"]]],
      ["R4", "只在顺子、同花、同花顺里用的顺序：A 2 3 4 5 … K A。A 可以在头（A2345）也可以在尾（10JQKA），不能绕过去（JQKA2 不是顺子）。同花里比单张时 A 最大、2 最小。", "Inside straights, flushes and straight flushes only: A 2 3 4 5 … K A. A may be low (A2345) or high (10JQKA); nothing wraps round (JQKA2 is no sequence). Within a flush A is high and 2 is low.", [["SA", "H2", "C3", "D4", "S5"], ["DT", "CJ", "HQ", "SK", "DA"]]],
      ["R5", "单张先比点数再比花色，所以 54 张牌大小都不同：方块4 最小，黑桃3 是最大的有花色的牌，再上面是小王、大王。", "Single cards compare by rank, then by suit, so all 54 differ: ♦4 is the lowest, ♠3 the highest suited card, then the small joker, then the big joker.", [["D4"], ["S3"], ["RJ"]]],
      ["R6", "牌的写法：花色字母加点数，如 S3 = 黑桃3、D4 = 方块4、HT = 红心10；小王 BJ、大王 RJ（记录文件里这样写）。", "How cards are written (in records): suit letter then rank, e.g. S3 = ♠3, D4 = ♦4, HT = ♥10; BJ the small joker, RJ the big joker."],
    ],
  },
  {
    zh: "座位、发牌和两方",
    en: "Seats, the deal and the sides",
    rules: [
      ["R7", "出牌逆时针，抓牌顺时针。", "Play goes counter-clockwise; drawing goes clockwise."],
      ["R8", "第一局翻牌决定谁先抓牌（翻出的牌数几下数到谁）；以后每局由上一局的上游先抓。上一局有人逃跑没有上游时，重新翻牌。", "In a table's first game a turned-up card decides who draws first (count its value round the table); after that the previous game's first out draws first. If the previous game had no first out (someone escaped), a card is turned up again."],
      ["R9", "从先抓牌的人开始一张一张顺时针抓完整副牌：先抓的人和他下一家 14 张，另外两家 13 张。", "The deck is drawn one card at a time, clockwise from the first drawer, until it is empty: the first drawer and the next seat clockwise get 14 cards, the other two 13."],
      ["R10", "拿到黑桃3 和黑桃2（两张牛鬼）的两家是一伙，叫黑方；另外两家是红方，二对二。一家同时拿到两张就是双牛鬼，一个人打三家（一打三）。", "Whoever holds ♠3 and ♠2 (the two niugui) are partners, the black side; the other two are the red side: two against two. If one seat holds both, it is the Double Niugui, alone against three.", [["S3", "S2"]]],
      ["R11", "谁跟谁一伙不公开，每人只看得到自己的牌。谁打出黑桃3 或黑桃2，他的位置上就一直亮着这张牌的标记。一打三不会宣布，等一家亮出两个标记大家才知道。牌局结束时全部公开。", "Nobody is told the sides: each seat sees only its own hand. Whoever plays ♠3 or ♠2 shows that card's mark at their seat for the rest of the game. One against three is never announced; it shows once one seat has shown both marks. Everything is revealed at the end."],
      ["R12", "大家都看得到：所有出牌和不出、谁出完了第几名、每家还剩几张、亮出的标记。别的都看不到，结束前谁的手牌都不会给别人看。", "Everyone sees every play and pass, who has gone out and in which place, how many cards each seat holds and the marks. Nothing else: no hand is shown to anyone before the game ends."],
    ],
  },
  {
    zh: "牌型",
    en: "Combinations",
    rules: [
      ["R13", "单牌：任意一张。", "Single: any one card.", [["HK"]]],
      ["R14", "对子：两张同点数。先比点数，再比两对里大的那张花色。大小王不成对，黑桃3 加黑桃2 也不是对子。", "Pair: two cards of one rank; higher rank wins, then the higher suit in each pair. The two jokers are no pair, and neither are ♠3 and ♠2.", [["D8", "S8"]]],
      ["R15", "干捞：三张同点数。", "Triple (干捞): three cards of one rank.", [["CQ", "HQ", "SQ"]]],
      ["R16", "四张：四张同点数。", "Four: four cards of one rank.", [["D6", "C6", "H6", "S6"]]],
      ["R17", "散牌（单牌、对子、干捞、四张）只能压同牌型、更大的牌。没有炸弹：四张只压更小的四张。", "A loose combination (single, pair, triple, four) beats only the same type, higher. There are no bombs: a four beats only a lower four."],
      ["R18", "顺子：五张点数相连（按上面的顺序），不全是同一花色。比最后一张的位置，再比它的花色：A2345 最小，10JQKA 最大。", "Straight: five ranks in sequence, not all one suit. Compare the top card's place in the sequence, then its suit: A2345 is the lowest, 10JQKA the highest.", [["H7", "C8", "D9", "ST", "HJ"]]],
      ["R19", "同花：五张同一花色但不相连。比最大的那张（A 最大、2 最小），再比花色。", "Flush: five cards of one suit, not in sequence. Compare the highest card (A high, 2 low), then the suit.", [["S4", "S8", "SJ", "SK", "S2"]]],
      ["R20", "三带对：干捞加一对。只比三张的点数，三个 3 最大。", "Full house: a triple plus a pair. Only the triple's rank counts; three 3s are the highest.", [["D9", "C9", "H9", "S5", "H5"]]],
      ["R21", "四带一：四张加任意一张。只比四张的点数。", "Four plus one: a four plus any single card. Only the four's rank counts.", [["DJ", "CJ", "HJ", "SJ", "D5"]]],
      ["R22", "王在五张牌里只能当四带一的那一张单牌。", "In a five-card combination a joker can only be the single of a four plus one.", [["D7", "C7", "H7", "S7", "BJ"]]],
      ["R23", "同花顺：五张同花色又相连。比法同顺子：方块A2345 最小，黑桃10JQKA 最大。", "Straight flush: five cards of one suit in sequence; compared as straights: ♦A2345 the lowest, ♠10JQKA the highest.", [["HT", "HJ", "HQ", "HK", "HA"]]],
      ["R24", "五张牌型从小到大：顺子 < 同花 < 三带对 < 四带一 < 同花顺。大的牌型压小的牌型，同牌型比大小。五张牌和散牌不能互压。", "Five-card classes from low to high: straight < flush < full house < four plus one < straight flush. A higher class beats a lower one; within a class the higher one wins. Five-card and loose combinations never beat each other."],
      ["R25", "别的组合都不能出：两张王、凑不成牌型的两三张、六张以上、不成牌型的五张。", "Nothing else can be played: two jokers, two or three cards that match no type, six or more cards, five cards of no class."],
    ],
  },
  {
    zh: "出牌",
    en: "Play",
    rules: [
      ["R26", "拿方块4 的人先出，第一手牌必须含方块4（任何含它的牌型都行）。", "The holder of ♦4 leads the first trick, and that first play must contain ♦4 (any combination with it).", [["D4"], ["D4", "S4"]]],
      ["R27", "按出牌顺序轮流，出完牌的人跳过。有任意出牌权时必须出牌；否则要么压过这一轮最后出的牌，要么不出（过门）。", "Turns go round in play order, skipping seats that have gone out. With the lead you must play; otherwise you either beat the last play of this trick or pass."],
      ["R28", "不出不会被锁住：这一轮下次轮到你还可以出。", "Passing does not lock you out: you may play on your next turn in the same trick."],
      ["R29", "一轮里最后出牌之后，其他还有牌的人都接连不出，这一轮就结束，最后出牌的人接着任意出牌。如果他已经出完了，由下一家还有牌的人接风。", "A trick ends when, after its last play, everyone else still holding cards has passed in a row; the last player to play leads the next trick. If that player has gone out, the lead passes to the next seat still holding cards."],
      ["R30", "出完最后一张就出局，依次是上游、二游、三游；牌局结束时手里还有牌的是下游（可能有两家）。", "Playing your last card takes the next place: 1st, 2nd, 3rd out. Anyone still holding cards when the game ends is last (there can be two)."],
      ["R31", "一方的人全部出完，这局就结束：二对二在第二或第三个人出完时；一打三在双牛鬼出完或另外三家都出完时。", "The game ends as soon as every seat of one side has gone out: in two against two after the 2nd or 3rd seat goes out; in one against three when the Double Niugui or all three others have gone out."],
    ],
  },
  {
    zh: "计分",
    en: "Scoring",
    rules: [
      ["R32", "上游所在的一方赢。", "The side of the first out wins."],
      ["R33", "二对二：看赢方另一家第几个出完——二游是牛鬼完胜（赢家各 +2，输家各 −2）；三游是牛鬼小胜（各 ±1）；下游（输方两家先出完了二三游）是免炒，不计分。", "Two against two: where the winners' other seat finishes decides it — 2nd out: a sweep, each winner +2 and each loser −2; 3rd out: a win, ±1 each; last (the losers went out 2nd and 3rd): a draw, no score."],
      ["R34", "一打三：双牛鬼上游是双牛成功（双牛鬼 +9，三家各 −3）；双牛鬼二游或三游是双牛逃跑，不计分；双牛鬼下游是活抓双牛（双牛鬼 −6，三家各 +2）。", "One against three: the Double Niugui first out wins big (+9, each of the three −3); 2nd or 3rd out, it gets away: no score; last, it is caught (−6, each of the three +2)."],
      ["R35", "逃跑：牌局进行中还有牌的人离开（在线上就是对局中离开牌桌，或断线超过等待时间），扣 9 分，这局立即结束，别人不计分。已经出完牌的人离开不算逃跑。", "Escape: a seat still holding cards that abandons a game in progress (online: leaving the table mid-game, or staying disconnected past the grace period) loses 9 and the game ends at once; nobody else's score changes. A seat that has gone out already does not escape by leaving."],
      ["R36", "一张牌桌记着每个座位所有局的总分；下一局谁先抓牌照上面的规矩。", "A table keeps every seat's running total over its games; the next game's first drawer follows the rule above."],
    ],
  },
];

/** The scoring table (R33–R35): [zh, en, winners, losers]. */
const SCORES = [
  ["牛鬼完胜（赢方另一家二游）", "Sweep (the winners' other seat 2nd out)", "+2", "−2"],
  ["牛鬼小胜（赢方另一家三游）", "Win (the winners' other seat 3rd out)", "+1", "−1"],
  ["免炒（输方二游、三游）", "Draw (the losers 2nd and 3rd out)", "0", "0"],
  ["双牛成功（双牛鬼上游）", "Double Niugui wins (1st out)", "+9", "−3"],
  ["双牛逃跑（双牛鬼二游或三游）", "Double Niugui gets away (2nd or 3rd)", "0", "0"],
  ["活抓双牛（双牛鬼下游）", "Double Niugui caught (last)", "+2", "−6"],
  ["逃跑", "Escape", "0", "−9"],
];

export const RULE_IDS = SECTIONS.flatMap((s) => s.rules.map((r) => r[0]));

/** The rules page. opts: {onBack(), langButton(), rule (an id to scroll to, or null)} */
export function rulesScreen(root, { onBack, langButton, rule = null }) {
  const zh = getLang() === "zh";
  root.innerHTML = "";
  root.className = "page rules-page";
  const bar = el("div", "topbar");
  bar.append(button("tb-btn", `← ${t("back")}`, "back", onBack), el("div", "grow", t("rules_title")));
  if (langButton) bar.append(langButton());
  root.append(bar);
  const body = el("div", "rules-body");
  body.dataset.role = "rules";
  for (const section of SECTIONS) {
    const panel = el("section", "panel");
    panel.append(el("h2", "", zh ? section.zh : section.en));
    for (const [id, zhText, enText, examples] of section.rules) {
      const item = el("div", "rule");
      item.id = id;
      item.dataset.rule = id;
      const text = el("p", "", zh ? zhText : enText);
      text.prepend(el("span", "rule-id", id));
      item.append(text);
      if (examples) {
        const shown = el("div", "rule-examples");
        for (const combo of examples) {
          const row = el("div", "cards-row rule-cards");
          for (const code of combo) row.append(cardElement(code, { size: "sm" }));
          shown.append(row);
        }
        item.append(shown);
      }
      panel.append(item);
      if (id === "R34") panel.append(scoreTable(zh));
    }
    body.append(panel);
  }
  root.append(body);
  if (rule) {
    const target = body.querySelector(`[data-rule="${CSS.escape(rule)}"]`);
    if (target) {
      target.classList.add("focus");
      target.scrollIntoView({ block: "center" });
    }
  }
  return null;
}

function scoreTable(zh) {
  const table = el("table", "grid scores");
  table.dataset.role = "score-table";
  const head = el("tr");
  for (const text of zh ? ["结果", "赢方每家", "输方每家"] : ["Outcome", "Each winner", "Each loser"]) head.append(el("th", "", text));
  table.append(head);
  for (const [zhName, enName, win, lose] of SCORES) {
    const row = el("tr");
    row.append(el("td", "", zh ? zhName : enName), el("td", "num", win), el("td", "num", lose));
    table.append(row);
  }
  return table;
}
