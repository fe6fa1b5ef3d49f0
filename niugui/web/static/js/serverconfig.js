// What the server offers and checks, read once at start from GET /api/config, so the page keeps no
// copy of its own: the bot levels (with their words in each language), the default level, and the
// turn timer's default and limits. The levels' words join the page's (t(`bot_${name}`)).

import { addWords } from "./i18n.js";

async function load() {
  try {
    const answer = await fetch("/api/config");
    if (answer.ok) return await answer.json();
  } catch {
    // offline: the lobby shows no levels to choose; the server would refuse anything anyway
  }
  return {
    bot_levels: [],
    default_bot_level: null,
    turn_seconds: { default: null, min: null, max: null },
    quick_turn_seconds: { min: null, max: null },
  };
}

export const serverConfig = await load();

const words = { zh: {}, en: {} };
for (const level of serverConfig.bot_levels) {
  words.zh[`bot_${level.name}`] = level.words.zh;
  words.en[`bot_${level.name}`] = level.words.en;
}
addWords(words);
