// Every error a player can meet, in the page's language: the server sends a `code` (and for an
// illegal move the `rule`, for a form the fields at fault); the words are the page's (words.js).

import { getLang, hasText, t } from "./i18n.js";

/** The words for one field that failed the server's checks (FastAPI's 422 list: loc, type). */
function fieldText(item) {
  const loc = Array.isArray(item.loc) ? item.loc : [];
  const name = String(loc[loc.length - 1] ?? "");
  const field = hasText(`field_${name}`) ? t(`field_${name}`) : name;
  const ctx = item.ctx || {};
  const params = { field, min: ctx.min_length ?? "", max: ctx.max_length ?? "" };
  const key = `input_${item.type}`;
  return t(hasText(key) ? key : "input_other", params);
}

/**
 * What to tell the player: `error` is {code, rule?, fields?} — a WebSocket error, an HTTP error's
 * detail, or {status} alone for an answer without a code.
 */
export function errorText(error) {
  const { code, rule, fields, status } = error || {};
  if (code === "illegal_move" && rule && hasText(`illegal_${rule}`)) return t(`illegal_${rule}`);
  if (code === "invalid_input" && Array.isArray(fields) && fields.length) {
    return fields.map(fieldText).join(getLang() === "zh" ? "；" : "; ");
  }
  if (code && hasText(`err_${code}`)) return t(`err_${code}`);
  if (status && hasText(`err_http_${status}`)) return t(`err_http_${status}`);
  if (status >= 500) return t("err_http_500");
  return t("err_unknown");
}
