"use strict";
// The console talks only to this server: its admin API, with the operator's session cookie and CSRF token (or,
// in emulator mode, the emulator's `Bearer owner`).
const state = { csrf: "", signin: "", project: "", emulator: false, next: "", user: null, pinned: {}, delivery: {} };
const $ = (selector) => document.querySelector(selector);
const admin = () => "/identitytoolkit.googleapis.com/v1/projects/" + encodeURIComponent(state.project);
// What to tell the operator for an error code: the server's table (ErrorGuidance), carried by the page as data.
const messages = JSON.parse(document.getElementById("error-messages").textContent || "{}");

function say(text, isError) {
  const status = $("#status");
  status.textContent = text;
  status.className = isError ? "error" : "";
}

function show(id) {
  for (const section of document.querySelectorAll("main > section")) section.hidden = section.id !== id;
  for (const button of document.querySelectorAll("nav button")) {
    if (button.dataset.view === id) button.setAttribute("aria-current", "page"); else button.removeAttribute("aria-current");
  }
  const heading = document.querySelector("#" + id + " h2");
  if (heading) { heading.tabIndex = -1; heading.focus(); }
}

function explain(data, status) {
  const message = (data && data.error && data.error.message) || "The server answered " + status + ".";
  const code = message.split(/[ :]/)[0];
  return messages[code] || (data && data.error && messages[data.error.status]) || message;
}

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (state.emulator) headers.Authorization = "Bearer owner"; else headers["X-Hearth-CSRF"] = state.csrf;
  const response = await fetch(path, { method, headers, credentials: "same-origin",
                                       body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json().catch(() => ({}));
  if (response.status === 401 && !(await refreshSignIn())) { show("signin"); }
  if (!response.ok) throw new Error(explain(data, response.status));
  return data;
}

async function run(work) {
  try { say(""); await work(); } catch (error) { say(error.message, true); }
}

// Signed in: enters the console. Signed out: keeps the sign-in form's token (the server's answer carries it).
async function refreshSignIn() {
  const response = await fetch("/console/session", { credentials: "same-origin" });
  if (response.ok) { enter(await response.json()); return true; }
  state.signin = response.headers.get("X-Hearth-CSRF") || "";
  return false;
}

function enter(session) {
  state.csrf = session.csrf;
  state.project = session.projectId;
  state.emulator = session.emulator;
  $("#banner").hidden = !session.emulator;
  $("#who").textContent = session.emulator ? "" : "Signed in as " + session.email;
  $("#signout").hidden = session.emulator;
  $("#nav").hidden = false;
  $("#info-project").textContent = session.projectId;
  $("#info-key").textContent = session.apiKey || "—";
  $("#info-version").textContent = session.version ? "· Hearth " + session.version : "";
  $("#project-info").hidden = false;
  for (const note of document.querySelectorAll(".smtp-note")) note.hidden = session.emulator || session.smtpConfigured;
  state.pinned = session.pinned || {};
  state.delivery = session.delivery || {};
  route();
}

// Each view has its own address (#/users, #/users/UID, #/audit, …), so Back, Forward, reloads and bookmarks work.
const views = {
  dashboard: () => run(dashboard),
  users: () => run(() => listUsers("")),
  "sign-in-method": () => run(loadMethods),
  outbox: () => run(async () => { await listOutbox(); await listHalts(); }),
  events: () => run(listEvents),
  audit: () => run(() => listAudit("")),
  // `data-loaded` says when every field holds the stored value (what a test waits for before changing one).
  settings: (panel) => run(async () => {
    $("#settings").dataset.loaded = "";
    showPanel(panel);
    await loadSettings();
    await loadTemplates();
    $("#settings").dataset.loaded = "true";
  }),
};

// Settings has a page per section (#/settings/passwords, …), each with its own Save.
function showPanel(name) {
  const panels = [...document.querySelectorAll("#settings .panel")];
  const chosen = panels.find((panel) => panel.id === "settings-" + name) || panels[0];
  for (const panel of panels) panel.hidden = panel !== chosen;
  for (const link of document.querySelectorAll("#settings-nav a")) {
    if (link.getAttribute("href") === "#/settings/" + chosen.id.slice("settings-".length)) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

// A setting the server's configuration fixes (the config file, a HEARTH_* variable) comes back at every start, so
// its controls are read-only here, saying where to change it.
function applyPins(root) {
  for (const control of root.querySelectorAll("[data-pin]")) {
    const path = control.dataset.pin;
    const source = Object.entries(state.pinned).find(([pinned]) => path === pinned || path.startsWith(pinned + ".") || pinned.startsWith(path + "."));
    control.disabled = !!source;
    const note = control.parentElement.querySelector(".pinned-note[data-for='" + path + "']");
    if (source && !note) {
      const text = document.createElement("span");
      text.className = "pinned-note";
      text.dataset.for = path;
      text.textContent = " (set by " + source[1] + ": change it there)";
      control.insertAdjacentElement("afterend", text);
    } else if (!source && note) note.remove();
  }
}

function go(path) {
  if (location.hash === "#/" + path) route(); else location.hash = "#/" + path;
}

// Records where a handler already took the operator (a new user's page), without loading the view again.
function mark(path) {
  if (location.hash !== "#/" + path) history.pushState(null, "", "#/" + path);
}

function route() {
  if (!state.project) return;  // signed out: the sign-in form stays until the session exists
  // An address typed by hand may hold a broken %-escape: it reads as nothing, never as an error.
  const decode = (part) => { try { return decodeURIComponent(part); } catch { return ""; } };
  const [view, id] = location.hash.replace(/^#\/?/, "").split("/").map(decode);
  if (view === "users" && id) { run(() => openUser(id)); return; }
  const name = views[view] ? view : "dashboard";
  show(name);
  views[name](id);
}

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text || "";
  row.appendChild(td);
  return td;
}

function render(users, caption) {
  const rows = $("#rows");
  rows.replaceChildren();
  for (const user of users) {
    const row = document.createElement("tr");
    const first = cell(row, "");
    const open = document.createElement("a");
    open.className = "open-user";
    // Credentials without a providerUserInfo entry are listed too: a custom token ("authenticated by the developer",
    // customAuth) and passkeys. Anonymous is what is left: no credential of any kind (UserRecord.isAnonymous).
    const providers = (user.providerUserInfo || []).map((p) => p.providerId)
      .concat(user.customAuth ? ["custom token"] : [], (user.passkeyInfo || []).length ? ["passkey"] : []);
    const anonymous = !user.email && !user.phoneNumber && providers.length === 0;
    open.textContent = user.email || user.phoneNumber || (user.customAuth ? "(custom token)" : anonymous ? "(anonymous)" : "(no email)");
    open.href = "#/users/" + encodeURIComponent(user.localId);
    open.dataset.uid = user.localId;
    first.appendChild(open);
    first.className = "email";
    cell(row, user.phoneNumber);
    cell(row, user.displayName);
    cell(row, anonymous ? "anonymous" : providers.join(", "));
    cell(row, when(user.createdAt));  // may wrap between date and time: the table must fit 1280 px
    cell(row, when(user.lastLoginAt));
    cell(row, user.localId).className = "uid";
    cell(row, user.disabled ? "disabled" : "active");
    rows.appendChild(row);
  }
  $("#caption").textContent = caption + " (" + users.length + ")";
}

// By uid: the store's cursor (constant time per page). Sorted: accounts:query, 25 at a time.
async function listUsers(token) {
  const sortBy = $("#sort").value;
  if (sortBy) {
    const offset = token ? Number(token) : 0;
    const page = await api("POST", admin() + "/accounts:query", { returnUserInfo: true, limit: "25", offset: String(offset),
                                                                 sortBy, order: sortBy === "CREATED_AT" ? "DESC" : "ASC" });
    const users = page.userInfo || [];
    state.next = users.length === 25 ? String(offset + 25) : "";
    $("#more").hidden = !state.next;
    return render(users, "All users by " + $("#sort").selectedOptions[0].textContent);
  }
  const page = await api("GET", admin() + "/accounts:batchGet?maxResults=25" +
                         (token ? "&nextPageToken=" + encodeURIComponent(token) : ""));
  state.next = page.nextPageToken || "";
  $("#more").hidden = !state.next;
  render(page.users || [], "All users");
}

async function search(query) {
  const text = query.trim();
  if (!text) return listUsers("");
  const body = text.includes("@") ? { email: [text] } : /^\+[0-9]{6,15}$/.test(text) ? { phoneNumber: [text] }
                                                                                 : { localId: [text] };
  const found = await api("POST", admin() + "/accounts:lookup", body);
  $("#more").hidden = true;
  render(found.users || [], "Users matching " + text);
}

function fill(list, entries) {
  list.replaceChildren();
  for (const [term, value] of entries) {
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.textContent = value === undefined || value === null || value === "" ? "—" : String(value);
    list.append(dt, dd);
  }
}

function items(list, values) {
  list.replaceChildren();
  for (const value of values.length ? values : ["none"]) {
    const li = document.createElement("li");
    li.textContent = value;
    list.appendChild(li);
  }
}

// Every time the console shows, in one format and one zone: "2026-11-29 13:09:05 UTC". Takes milliseconds since
// 1970 (a number, or digits as the admin API writes them) or an RFC 3339 time.
function when(value) {
  if (value === undefined || value === null || value === "") return "";
  const date = /^[0-9]+$/.test(String(value)) ? new Date(Number(value)) : new Date(value);
  return isNaN(date.getTime()) ? String(value) : date.toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

async function openUser(uid) {
  const found = await api("POST", admin() + "/accounts:lookup", { localId: [uid] });
  const user = (found.users || [])[0];
  if (!user) throw new Error(messages.USER_NOT_FOUND);
  state.user = user;
  $("#user-title").textContent = user.email || user.phoneNumber || user.localId;
  fill($("#fields"), [["uid", user.localId], ["Email", user.email], ["Email verified", user.emailVerified ? "yes" : "no"],
                      ["Phone", user.phoneNumber], ["Name", user.displayName], ["Status", user.disabled ? "disabled" : "active"],
                      ["Created", when(user.createdAt)], ["Last sign-in", when(user.lastLoginAt)],
                      ["Tenant", user.tenantId]]);
  items($("#providers"), (user.providerUserInfo || []).map((p) => p.providerId + (p.email ? " (" + p.email + ")" : "")));
  items($("#factors"), (user.mfaInfo || []).map((f) => (f.displayName || f.mfaEnrollmentId) + (f.phoneInfo ? " " + f.phoneInfo : " (authenticator app)")));
  const passkeys = $("#passkeys");
  passkeys.replaceChildren();
  for (const key of user.passkeyInfo || []) {
    const item = document.createElement("li");
    item.textContent = (key.name || "Unnamed Passkey") + " ";
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "remove-passkey";
    remove.textContent = "Remove";
    remove.addEventListener("click", () => run(async () => {
      await api("POST", admin() + "/accounts:update", { localId: user.localId, deletePasskey: [key.credentialId] });
      await openUser(user.localId);
      say("The passkey " + (key.name || "") + " was removed.");
    }));
    item.appendChild(remove);
    passkeys.appendChild(item);
  }
  if (!(user.passkeyInfo || []).length) items(passkeys, []);
  $("#claims").value = user.customAttributes || "{}";
  $("#toggle-disabled").textContent = user.disabled ? "Enable user" : "Disable user";
  $("#link").hidden = true;
  show("user");
}

async function dashboard() {
  const stats = await api("GET", admin() + "/auditStats?days=14");
  const days = stats.days || [];
  const sum = (key) => days.reduce((total, day) => total + day[key], 0);
  $("#totals").textContent = "Last 14 days: " + sum("signIns") + " sign-ins, " + sum("signUps") + " sign-ups, " +
    sum("failures") + " failed sign-ins" + (stats.truncated ? " (counted from the newest 200,000 events)" : "") + ".";
  const svg = $("#chart");
  for (const old of svg.querySelectorAll("rect, text")) old.remove();
  const series = [["signIns", "#0b57d0"], ["signUps", "#1e8e3e"], ["failures", "#b3261e"]];
  const highest = Math.max(1, ...days.flatMap((day) => series.map(([key]) => day[key])));
  const slot = 700 / Math.max(days.length, 1);
  const ns = "http://www.w3.org/2000/svg";
  days.forEach((day, index) => {
    series.forEach(([key, color], which) => {
      const height = Math.round(day[key] / highest * 180);
      const bar = document.createElementNS(ns, "rect");
      bar.setAttribute("x", String(index * slot + 4 + which * (slot - 8) / 3));
      bar.setAttribute("y", String(190 - height));
      bar.setAttribute("width", String(Math.max(1, (slot - 8) / 3 - 1)));
      bar.setAttribute("height", String(height));
      bar.setAttribute("fill", color);
      svg.appendChild(bar);
    });
    const label = document.createElementNS(ns, "text");
    label.setAttribute("x", String(index * slot + slot / 2));
    label.setAttribute("y", "210");
    label.setAttribute("text-anchor", "middle");
    label.setAttribute("font-size", "11");
    label.setAttribute("fill", "currentColor");
    label.textContent = day.date.slice(5);
    svg.appendChild(label);
  });
  const rows = $("#day-rows");
  rows.replaceChildren();
  for (const day of days.slice().reverse()) {
    const row = document.createElement("tr");
    for (const value of [day.date, day.signIns, day.signUps, day.failures, day.activeUsers]) cell(row, String(value));
    rows.appendChild(row);
  }
  const byProvider = Object.entries(stats.providers || {}).sort((a, b) => b[1] - a[1]);
  const providerRows = $("#provider-rows");
  providerRows.replaceChildren();
  for (const [provider, count] of byProvider.length ? byProvider : [["none yet", 0]]) {
    const row = document.createElement("tr");
    cell(row, provider);
    cell(row, String(count));
    providerRows.appendChild(row);
  }
}

async function sendTest(path, body, what) {
  const outcome = await api("POST", admin() + path, body);
  if (!outcome.delivered) throw new Error("The " + what + " was not sent: " + outcome.error);
  say("The test " + what + " was sent.");
}

async function listOutbox() {
  const found = await api("GET", admin() + "/outbox");
  const messages = found.messages || [];
  const failed = messages.filter((m) => m.state === "FAILED").length;
  $("#outbox-summary").textContent = messages.length ? (messages.length - failed) + " waiting, " + failed + " given up."
                                                     : "Nothing waiting: every email was delivered.";
  const rows = $("#outbox-rows");
  rows.replaceChildren();
  for (const message of messages) {
    const row = document.createElement("tr");
    for (const value of [when(message.createTime), message.type, message.recipient,
                         message.state === "FAILED" ? "given up" : "next try " + when(message.nextAttemptTime),
                         String(message.attempts), message.lastError]) cell(row, value);
    const action = cell(row, "");
    if (message.state === "FAILED") {
      const retry = document.createElement("button");
      retry.type = "button";
      retry.className = "retry";
      retry.textContent = "Retry";
      retry.addEventListener("click", () => run(async () => {
        await api("POST", admin() + "/outbox/" + encodeURIComponent(message.id) + ":retry", {});
        await listOutbox();
        say("The email to " + message.recipient + " will be tried again now.");
      }));
      action.appendChild(retry);
    }
    rows.appendChild(row);
  }
}

async function listHalts() {
  const halts = (await api("GET", admin() + "/smsHalts")).halts || [];
  $("#halts-summary").textContent = halts.length
    ? halts.length + " prefix(es) halted. Lift one if its traffic is genuine; the halt ends by itself at its time."
    : "No prefix is halted.";
  const rows = $("#halts-rows");
  rows.replaceChildren();
  for (const halt of halts) {
    const row = document.createElement("tr");
    for (const value of [halt.prefix + "…", String(halt.numbers), when(halt.startTime), when(halt.endTime)]) cell(row, value);
    const lift = document.createElement("button");
    lift.type = "button";
    lift.className = "lift";
    lift.textContent = "Lift";
    lift.addEventListener("click", () => run(async () => {
      await api("DELETE", admin() + "/smsHalts/" + encodeURIComponent(halt.prefix.replace(/^\+/, "")));
      await listHalts();
      say("Codes to " + halt.prefix + "… are sent again.");
    }));
    cell(row, "").appendChild(lift);
    rows.appendChild(row);
  }
}

async function listEvents() {
  const found = await api("GET", admin() + "/webhooks");
  const endpoints = found.endpoints || [], deliveries = found.deliveries || [];
  items($("#endpoints-list"), endpoints.length
    ? endpoints.map((e) => e.id + " → " + e.url + " (" + e.eventTypes.join(", ") + ")")
    : ["No endpoints yet."]);
  const failed = deliveries.filter((d) => d.state === "FAILED").length;
  const pending = deliveries.filter((d) => d.state === "PENDING").length;
  $("#events-summary").textContent = deliveries.length
    ? (deliveries.length - failed - pending) + " delivered, " + pending + " waiting, " + failed + " given up (`hearth events replay` sends them again)."
    : "Nothing sent yet.";
  const rows = $("#events-rows");
  rows.replaceChildren();
  for (const d of deliveries) {
    const row = document.createElement("tr");
    const stateText = d.state === "DELIVERED" ? "delivered " + when(d.deliverTime)
      : d.state === "FAILED" ? "given up" : "retrying " + when(d.nextAttemptTime);
    for (const value of [when(d.createTime), d.eventType || "(gone from the log)", d.localId, d.endpointId, stateText,
                         String(d.attempts), d.lastError]) cell(row, value);
    rows.appendChild(row);
  }
}

// The emails of the users `uids` name, in one lookup (an audit page names at most 50).
async function emailsOf(uids) {
  const wanted = [...new Set(uids.filter((uid) => uid))];
  if (!wanted.length) return {};
  const found = await api("POST", admin() + "/accounts:lookup", { localId: wanted });
  return Object.fromEntries((found.users || []).map((user) => [user.localId, user.email || user.phoneNumber || ""]));
}

async function listAudit(token) {
  const query = new URLSearchParams({ pageSize: "50" });
  if ($("#audit-type").value.trim()) query.set("type", $("#audit-type").value.trim());
  const who = $("#audit-uid").value.trim();
  if (who.includes("@")) {  // an email: the audit log keeps uids, so find whose it is
    const found = await api("POST", admin() + "/accounts:lookup", { email: [who] });
    query.set("localId", ((found.users || [])[0] || {}).localId || who);
  } else if (who) query.set("localId", who);
  if (token) query.set("pageToken", token);
  const page = await api("GET", admin() + "/auditEvents?" + query.toString());
  const emails = await emailsOf((page.events || []).map((event) => event.localId));
  const rows = $("#audit-rows");
  if (!token) rows.replaceChildren();
  for (const event of page.events || []) {
    const row = document.createElement("tr");
    const details = event.details || {};
    const what = details.command ? details.command + (details.subject ? " " + details.subject : "")
      : details.route ? details.method + " " + details.route.replace(/^\/identitytoolkit\.googleapis\.com/, "")
      : details.provider || details.reason || "";
    cell(row, when(event.time)).className = "time";
    for (const value of [event.type, event.outcome, what, details.actor]) cell(row, value);
    const user = cell(row, "");
    if (event.localId) {
      const link = document.createElement("a");
      link.href = "#/users/" + encodeURIComponent(event.localId);
      link.textContent = emails[event.localId] || event.localId;
      link.title = "uid " + event.localId;
      user.className = emails[event.localId] ? "email" : "uid";
      user.appendChild(link);
    }
    cell(row, event.clientAddress);
    rows.appendChild(row);
  }
  state.auditNext = page.nextPageToken || "";
  $("#audit-more").hidden = !state.auditNext;
}

const config = () => "/identitytoolkit.googleapis.com/v2/projects/" + encodeURIComponent(state.project);

async function loadSettings() {
  const current = await api("GET", config() + "/config?view=full");
  $("#set-privacy").checked = !!(current.emailPrivacyConfig && current.emailPrivacyConfig.enableImprovedEmailPrivacy);
  const permissions = (current.client && current.client.permissions) || {};
  $("#set-user-signup").checked = !permissions.disabledUserSignup;
  $("#set-user-deletion").checked = !permissions.disabledUserDeletion;
  const factors = (current.mfa && current.mfa.state === "ENABLED") ? (current.mfa.enabledProviders || []) : [];
  const totp = ((current.mfa && current.mfa.providerConfigs) || []).some((c) => c.state === "ENABLED" && c.totpProviderConfig);
  $("#set-mfa-sms").checked = factors.includes("PHONE_SMS");
  $("#set-mfa-totp").checked = totp;
  listDomains(current.authorizedDomains || []);
  const hash = (current.signIn && current.signIn.hashConfig) || {};
  fill($("#hash-config"), [["Algorithm", hash.algorithm], ["Base64 signer key", hash.signerKey],
                           ["Base64 salt separator", hash.saltSeparator], ["Rounds", hash.rounds], ["Memory cost", hash.memoryCost]]);
  showDelivery();
  const policy = current.passwordPolicyConfig || {};
  const options = ((policy.passwordPolicyVersions || [])[0] || {}).customStrengthOptions || {};
  $("#set-policy").checked = policy.passwordPolicyEnforcementState === "ENFORCE";
  $("#set-policy-min").value = String(options.minPasswordLength || 6);
  $("#set-policy-lower").checked = !!options.containsLowercaseCharacter;
  $("#set-policy-upper").checked = !!options.containsUppercaseCharacter;
  $("#set-policy-digit").checked = !!options.containsNumericCharacter;
  $("#set-policy-symbol").checked = !!options.containsNonAlphanumericCharacter;
  $("#set-policy-upgrade").checked = !!policy.forceUpgradeOnSignin;
  $("#set-autodelete").checked = !!current.autodeleteAnonymousUsers;
  const regions = current.smsRegionConfig || {};
  $("#set-sms-mode").value = regions.allowlistOnly ? "allow" : regions.allowByDefault ? "deny" : "all";
  $("#set-sms-regions").value = ((regions.allowlistOnly && regions.allowlistOnly.allowedRegions)
    || (regions.allowByDefault && regions.allowByDefault.disallowedRegions) || []).join(",");
  const relyingParty = await api("GET", config() + "/passkeyConfig");
  $("#set-rp-id").value = relyingParty.rpId || "";
  $("#set-rp-origins").value = (relyingParty.expectedOrigins || []).join(",");
  $("#set-rp-uv").checked = relyingParty.requireUserVerification !== false;
  const captcha = current.recaptchaConfig || {};
  $("#set-captcha-email").value = captcha.emailPasswordEnforcementState || "OFF";
  $("#set-captcha-phone").value = captcha.phoneEnforcementState || "OFF";
  const triggers = (current.blockingFunctions && current.blockingFunctions.triggers) || {};
  items($("#hooks-list"), Object.keys(triggers).sort().map((event) => event + ": " + triggers[event].functionUri));
  const accounts = await api("GET", admin() + "/serviceAccounts");
  const accountList = $("#accounts-list");
  accountList.replaceChildren();
  for (const account of accounts.serviceAccounts || []) {
    const li = document.createElement("li");
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "danger";
    remove.textContent = "Delete " + account.name;
    remove.addEventListener("click", () => run(async () => {
      if (!window.confirm("Delete " + account.clientEmail + "? Whoever uses its key loses access at once.")) return;
      await api("DELETE", admin() + "/serviceAccounts/" + encodeURIComponent(account.name));
      await loadSettings();
      say(account.name + " deleted.");
    }));
    li.append(account.clientEmail + " (key " + account.keyId.slice(0, 12) + "…, " + when(account.createTime)
              + (account.createdBy ? ", made by " + account.createdBy : "") + ") ", remove);
    accountList.appendChild(li);
  }
  if (!accountList.children.length) items(accountList, ["none"]);
  const tenants = await api("GET", config() + "/tenants?pageSize=100");
  items($("#tenants-list"), (tenants.tenants || []).map((t) => (t.displayName || t.tenantId) + " — " + t.tenantId +
                                                       (t.disableAuth ? " (sign-in off)" : "")));
  applyPins($("#settings"));
}

// Firebase's export format for one user of the admin API (`lastLoginAt` is `lastSignedInAt` there).
function exported(user) {
  const out = { localId: user.localId, emailVerified: !!user.emailVerified, disabled: !!user.disabled, createdAt: user.createdAt };
  for (const key of ["email", "passwordHash", "salt", "displayName", "photoUrl", "phoneNumber", "customAttributes"]) {
    if (user[key] !== undefined) out[key] = user[key];
  }
  if (user.lastLoginAt) out.lastSignedInAt = user.lastLoginAt;
  const providers = (user.providerUserInfo || []).filter((p) => p.providerId !== "password" && p.providerId !== "phone")
    .map((p) => ({ providerId: p.providerId, rawId: p.rawId, email: p.email, displayName: p.displayName, photoUrl: p.photoUrl }));
  if (providers.length) out.providerUserInfo = providers;
  const factors = (user.mfaInfo || []).filter((f) => f.phoneInfo);
  if (factors.length) out.mfaInfo = factors;
  return out;
}

function progress(done, total) {
  const bar = $("#progress");
  bar.hidden = total === 0;
  bar.max = Math.max(total, 1);
  bar.value = done;
}

async function exportUsers() {
  const users = [];
  let token = "";
  do {
    const page = await api("GET", admin() + "/accounts:batchGet?maxResults=1000" + (token ? "&nextPageToken=" + encodeURIComponent(token) : ""));
    for (const user of page.users || []) users.push(exported(user));
    token = page.nextPageToken || "";
    say("Exported " + users.length + " users…");
  } while (token);
  save("users.json", JSON.stringify({ users }, null, 1));
  say("Exported " + users.length + " users to users.json.");
  return users.length;
}

async function importUsers(text) {
  let file;
  try { file = JSON.parse(text); } catch (error) { throw new Error("The file is not JSON: " + error.message); }
  const users = (file && Array.isArray(file.users)) ? file.users : null;
  if (!users) throw new Error("The file has no \"users\" list: is it an export of Firebase or Hearth?");
  const hash = (await api("GET", config() + "/config?view=full")).signIn.hashConfig;
  let done = 0;
  const problems = [];
  for (let start = 0; start < users.length; start += 1000) {
    const chunk = users.slice(start, start + 1000).map((user) => {
      const copy = Object.assign({}, user);
      if (copy.lastSignedInAt) { copy.lastLoginAt = copy.lastSignedInAt; delete copy.lastSignedInAt; }
      return copy;
    });
    const answer = await api("POST", admin() + "/accounts:batchCreate", {
      users: chunk, hashAlgorithm: "SCRYPT", signerKey: hash.signerKey, saltSeparator: hash.saltSeparator,
      rounds: hash.rounds, memoryCost: hash.memoryCost });
    for (const error of answer.error || []) problems.push("#" + (start + error.index + 1) + ": " + error.message);
    done += chunk.length;
    progress(done, users.length);
    say("Imported " + done + " of " + users.length + " users…");
  }
  say("Imported " + (users.length - problems.length) + " of " + users.length + " users." +
      (problems.length ? " Not imported: " + problems.slice(0, 10).join("; ") + (problems.length > 10 ? " …" : "") : ""),
      problems.length > 0);
  return problems;
}

// Offers `text` as a file download (no request leaves the page).
function save(name, text) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  link.download = name;
  document.body.appendChild(link);
  link.click();
  setTimeout(() => { URL.revokeObjectURL(link.href); link.remove(); }, 1000);
}

async function update(body, done) {
  await api("POST", admin() + "/accounts:update", Object.assign({ localId: state.user.localId }, body));
  await openUser(state.user.localId);
  say(done);
}

document.addEventListener("DOMContentLoaded", () => {
  $("#signin-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run(async () => {
      const response = await fetch("/console/session", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-Hearth-CSRF": state.signin },
        body: JSON.stringify({ email: $("#email").value, password: $("#password").value, code: $("#code").value }) });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(explain(data, response.status));
      $("#password").value = "";
      $("#code").value = "";
      enter(data);
    });
  });
  $("#signout").addEventListener("click", () => run(async () => {
    await fetch("/console/session", { method: "DELETE", credentials: "same-origin",
                                      headers: { "Content-Type": "application/json", "X-Hearth-CSRF": state.csrf } });
    state.project = "";
    await refreshSignIn();
    $("#who").textContent = "";
    $("#signout").hidden = true;
    $("#project-info").hidden = true;
    show("signin");
  }));
  $("#search-form").addEventListener("submit", (event) => { event.preventDefault(); run(() => search($("#query").value)); });
  $("#all").addEventListener("click", () => run(() => listUsers("")));
  $("#sort").addEventListener("change", () => run(() => listUsers("")));
  $("#more").addEventListener("click", () => run(() => listUsers(state.next)));
  $("#back").addEventListener("click", () => go("users"));
  for (const button of document.querySelectorAll("nav button")) button.addEventListener("click", () => go(button.dataset.view));
  window.addEventListener("hashchange", route);
  $("#provider-id").addEventListener("change", () => {
    for (const field of document.querySelectorAll(".oidc-only")) field.hidden = $("#provider-id").value !== "oidc";
  });
  $("#provider-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run(async () => {
      const oidc = $("#provider-id").value === "oidc";
      const id = oidc ? "oidc." + $("#provider-oidc-name").value : $("#provider-id").value;
      const collection = oidc ? "oauthIdpConfigs" : "defaultSupportedIdpConfigs";
      const body = { enabled: true, clientId: $("#provider-client-id").value };
      if ($("#provider-secret").value) body.clientSecret = $("#provider-secret").value;
      if (oidc) { body.issuer = $("#provider-issuer").value; body.displayName = $("#provider-oidc-name").value; }
      const known = methods.configured[id];
      if (known) {
        // An edit: the client id, and the secret only when one is typed (it is write-only; empty keeps it).
        delete body.enabled;
        const mask = ["clientId"].concat(body.clientSecret ? ["clientSecret"] : [], oidc ? ["issuer"] : []);
        await api("PATCH", config() + "/" + known.collection + "/" + encodeURIComponent(id) + "?updateMask=" + mask.join(","), body);
      } else {
        await api("POST", config() + "/" + collection + "?" + (oidc ? "oauthIdpConfigId=" : "idpId=") + encodeURIComponent(id), body);
      }
      $("#provider-secret").value = "";
      $("#provider-client-id").value = "";
      $("#provider-form").hidden = true;
      await loadMethods();
      say(id + (known ? " saved." : " added and turned on."));
    });
  });
  $("#create-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run(async () => {
      const made = await api("POST", admin() + "/accounts", { email: $("#new-email").value, password: $("#new-password").value });
      $("#new-password").value = "";
      await openUser(made.localId);
      mark("users/" + encodeURIComponent(made.localId));
      say("User created.");
    });
  });
  $("#export").addEventListener("click", () => run(exportUsers));
  $("#import-file").addEventListener("change", () => run(async () => {
    const chosen = $("#import-file").files[0];
    if (!chosen) return;
    await importUsers(await chosen.text());
    $("#import-file").value = "";
    await listUsers("");
  }));
  $("#audit-form").addEventListener("submit", (event) => { event.preventDefault(); run(() => listAudit("")); });
  $("#audit-more").addEventListener("click", () => run(() => listAudit(state.auditNext)));
  $("#save-settings").addEventListener("click", () => run(async () => {
    // A pinned switch is left out of the mask: the server would refuse it (it comes back at every start).
    const privacy = $("#set-privacy").disabled ? "" : "emailPrivacyConfig.enableImprovedEmailPrivacy,";
    await api("PATCH", config() + "/config?updateMask=" + privacy + "client.permissions", {
      emailPrivacyConfig: { enableImprovedEmailPrivacy: $("#set-privacy").checked },
      client: { permissions: { disabledUserSignup: !$("#set-user-signup").checked,
                               disabledUserDeletion: !$("#set-user-deletion").checked } } });
    await loadSettings();
    say("User actions saved.");
  }));
  $("#save-passwords").addEventListener("click", () => run(async () => {
    await api("PATCH", config() + "/config?updateMask=passwordPolicyConfig,autodeleteAnonymousUsers", {
      passwordPolicyConfig: {
        passwordPolicyEnforcementState: $("#set-policy").checked ? "ENFORCE" : "OFF",
        forceUpgradeOnSignin: $("#set-policy-upgrade").checked,
        passwordPolicyVersions: [{ customStrengthOptions: {
          minPasswordLength: Number($("#set-policy-min").value) || 6,
          containsLowercaseCharacter: $("#set-policy-lower").checked, containsUppercaseCharacter: $("#set-policy-upper").checked,
          containsNumericCharacter: $("#set-policy-digit").checked, containsNonAlphanumericCharacter: $("#set-policy-symbol").checked } }] },
      autodeleteAnonymousUsers: $("#set-autodelete").checked });
    await loadSettings();
    say("Password settings saved.");
  }));
  $("#save-passkeys").addEventListener("click", () => run(async () => {
    await api("PATCH", config() + "/passkeyConfig", { rpId: $("#set-rp-id").value.trim(),
      expectedOrigins: $("#set-rp-origins").value.split(",").map((o) => o.trim()).filter((o) => o),
      requireUserVerification: $("#set-rp-uv").checked });
    await loadSettings();
    say("Passkey settings saved.");
  }));
  $("#save-abuse").addEventListener("click", () => run(async () => {
    const codes = $("#set-sms-regions").value.split(",").map((code) => code.trim()).filter((code) => code);
    const mode = $("#set-sms-mode").value;
    const smsRegionConfig = mode === "allow" ? { allowlistOnly: { allowedRegions: codes } }
      : mode === "deny" ? { allowByDefault: { disallowedRegions: codes } } : {};
    await api("PATCH", config() + "/config?updateMask=smsRegionConfig,recaptchaConfig", { smsRegionConfig,
      recaptchaConfig: { emailPasswordEnforcementState: $("#set-captcha-email").value,
                         phoneEnforcementState: $("#set-captcha-phone").value } });
    await loadSettings();
    say("Abuse controls saved.");
  }));
  $("#save-mfa").addEventListener("click", () => run(async () => {
    const sms = $("#set-mfa-sms").checked;
    const totp = $("#set-mfa-totp").checked;
    await api("PATCH", config() + "/config?updateMask=mfa.state,mfa.enabledProviders,mfa.providerConfigs", { mfa: {
      state: sms || totp ? "ENABLED" : "DISABLED", enabledProviders: sms ? ["PHONE_SMS"] : [],
      providerConfigs: totp ? [{ state: "ENABLED", totpProviderConfig: { adjacentIntervals: 1 } }] : [] } });
    await loadSettings();
    say("Second factors saved.");
  }));
  $("#account-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run(async () => {
      const name = $("#account-name").value;
      const key = await api("POST", admin() + "/serviceAccounts", { name });
      save(name + ".json", JSON.stringify(key, null, 2));
      $("#account-name").value = "";
      await loadSettings();
      say("Created " + key.client_email + ": its key file was downloaded. Keep it secret; it cannot be downloaded again.");
    });
  });
  $("#send-test-email").addEventListener("click", () => run(() => sendTest("/emailTest", { to: $("#test-email").value }, "email")));
  $("#send-test-sms").addEventListener("click", () => run(() => sendTest("/smsTest", { phoneNumber: $("#test-phone").value }, "SMS")));
  $("#tenant-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run(async () => {
      const made = await api("POST", config() + "/tenants", { displayName: $("#tenant-name").value });
      $("#tenant-name").value = "";
      await loadSettings();
      say("Tenant " + made.tenantId + " created.");
    });
  });
  $("#toggle-disabled").addEventListener("click", () => run(() =>
    update({ disableUser: !state.user.disabled }, state.user.disabled ? "User enabled." : "User disabled: their sign-ins now fail.")));
  $("#revoke").addEventListener("click", () => run(() =>
    update({ validSince: String(Math.floor(Date.now() / 1000)) }, "Sessions revoked: the user must sign in again.")));
  $("#save-claims").addEventListener("click", () => run(async () => {
    let claims;
    try { claims = JSON.parse($("#claims").value); } catch (error) { throw new Error("The claims are not JSON: " + error.message); }
    if (claims === null || typeof claims !== "object" || Array.isArray(claims)) throw new Error("The claims must be a JSON object.");
    await update({ customAttributes: JSON.stringify(claims) }, "Claims saved: they are in the user's next ID token.");
  }));
  // A reset or verification link, to copy (returnOobLink: nothing is sent) or emailed to the user.
  const oob = (requestType, returnOobLink, done) => run(async () => {
    if (!state.user.email) throw new Error("This user has no email address.");
    const sent = await api("POST", admin() + "/accounts:sendOobCode", { requestType, email: state.user.email, returnOobLink });
    const link = $("#link");
    link.textContent = returnOobLink ? sent.oobLink || "" : "";
    link.hidden = !returnOobLink;
    say(done);
  });
  $("#reset-link").addEventListener("click", () => oob("PASSWORD_RESET", true, "Password reset link made (not emailed): copy it from below."));
  $("#send-reset").addEventListener("click", () => oob("PASSWORD_RESET", false, "A password reset email is on its way."));
  $("#verify-link").addEventListener("click", () => oob("VERIFY_EMAIL", true, "Verification link made (not emailed): copy it from below."));
  $("#send-verify").addEventListener("click", () => oob("VERIFY_EMAIL", false, "A verification email is on its way."));
  $("#delete").addEventListener("click", () => run(async () => {
    if (!window.confirm("Delete " + ($("#user-title").textContent) + "? This cannot be undone.")) return;
    await api("POST", admin() + "/accounts:delete", { localId: state.user.localId });
    mark("users");
    show("users");
    say("User deleted.");
    await listUsers("");
  }));
  run(async () => {
    if (await refreshSignIn()) return;
    show("signin");
  });
});
