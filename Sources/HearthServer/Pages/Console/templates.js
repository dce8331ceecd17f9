"use strict";
// Settings → Email templates: each email in each language, edited, previewed as typed (by the engine that sends
// it), saved with the project, reset to Hearth's text, and sent as a test. A template the config file sets is shown
// read-only with its source. Uses console.js's helpers (api, run, say, admin).

const templates = { stored: {}, pinned: {}, locales: [], from: "", fromName: "" };
const templateFields = { fromName: "#tpl-from-name", from: "#tpl-from", subject: "#tpl-subject", text: "#tpl-text", html: "#tpl-html" };

function chosenTemplate() {
  return { type: $("#tpl-type").value, locale: $("#tpl-locale").value };
}

// What the fields say, without the empty ones (an empty field is Hearth's own).
function draftTemplate() {
  const draft = {};
  for (const [part, selector] of Object.entries(templateFields)) {
    const value = $(selector).value;
    if (value.trim()) draft[part] = value;
  }
  return draft;
}

async function loadTemplates() {
  const listed = await api("GET", admin() + "/emailTemplates");
  Object.assign(templates, { stored: listed.templates || {}, pinned: listed.pinned || {}, locales: listed.locales || [],
                             from: listed.from, fromName: listed.fromName });
  const select = $("#tpl-locale");
  const chosen = select.value;
  select.replaceChildren(...templates.locales.map((code) => new Option(code, code)));
  select.value = templates.locales.includes(chosen) ? chosen : listed.defaultLocale;
  showTemplate();
  await previewTemplate();
}

// Fills the fields with the stored template of the chosen email and language, and says whose text it is.
function showTemplate() {
  const { type, locale } = chosenTemplate();
  const stored = (templates.stored[locale] || {})[type] || {};
  for (const [part, selector] of Object.entries(templateFields)) $(selector).value = stored[part] || "";
  $("#tpl-from-name").placeholder = templates.fromName;
  $("#tpl-from").placeholder = templates.from;
  const pin = (templates.pinned[locale] || {})[type];
  $("#tpl-fields").disabled = Boolean(pin);
  $("#tpl-state").textContent = pin ? "Set by " + pin + ": shown read-only. Change it there, or remove it there to edit it here."
    : Object.keys(stored).length ? "Customized: saved with the project." : "Hearth's own text.";
}

async function previewTemplate() {
  const body = chosenTemplate();
  const draft = draftTemplate();
  if (Object.keys(draft).length) body.template = draft;
  const shown = await api("POST", admin() + "/emailTemplates:preview", body);
  $("#preview-from").textContent = (shown.fromName ? shown.fromName + " " : "") + "<" + shown.from + ">";
  $("#preview-subject").textContent = shown.subject;
  $("#preview-text").textContent = shown.text;
}

let previewTimer = 0;
function previewSoon() {
  clearTimeout(previewTimer);
  previewTimer = setTimeout(() => run(previewTemplate), 300);
}

async function saveTemplate(template, done) {
  const saved = await api("PATCH", admin() + "/emailTemplates", Object.assign(chosenTemplate(), { template }));
  templates.stored = saved.templates || {};
  showTemplate();
  await previewTemplate();
  say(done);
}

document.addEventListener("DOMContentLoaded", () => {
  for (const id of ["#tpl-type", "#tpl-locale"]) $(id).addEventListener("change", () => run(async () => { showTemplate(); await previewTemplate(); }));
  for (const selector of Object.values(templateFields)) $(selector).addEventListener("input", previewSoon);
  $("#tpl-save").addEventListener("click", () => run(() => {
    const { type, locale } = chosenTemplate();
    return saveTemplate(draftTemplate(), "Template saved: " + type + " in " + locale + " is sent as previewed.");
  }));
  $("#tpl-reset").addEventListener("click", () => run(() => saveTemplate(null, "Hearth's own text is used again.")));
  $("#tpl-test").addEventListener("click", () => run(() => {
    const body = Object.assign(chosenTemplate(), { to: $("#tpl-test-to").value });
    const draft = draftTemplate();
    if (Object.keys(draft).length) body.template = draft;
    return sendTest("/emailTest", body, "email");
  }));
});
