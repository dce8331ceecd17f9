"use strict";
// The Sign-in method page (every provider with its switch and its setup, as Firebase's console lists them), the
// authorized domains, and how email and SMS leave. Uses console.js's helpers (api, run, say, config, applyPins).

const providerNames = {
  "google.com": "Google", "apple.com": "Apple", "facebook.com": "Facebook", "github.com": "GitHub",
  "microsoft.com": "Microsoft", "twitter.com": "Twitter", "yahoo.com": "Yahoo", "gc.apple.com": "Game Center",
};
const methods = { configured: {} };

// One row: the provider's name, its status, its switch (`toggle` saves it; none for a method that is only set up
// elsewhere) and its setup (a node, or text).
function methodRow(name, status, on, toggle, setup, pin) {
  const row = document.createElement("tr");
  row.dataset.method = name;
  cell(row, name).className = "method-name";
  const statusCell = cell(row, status);
  statusCell.className = "method-status";
  const switchCell = cell(row, "");
  const label = document.createElement("label");
  label.className = "switch";
  const box = document.createElement("input");
  box.type = "checkbox";
  box.checked = on;
  box.disabled = !toggle;
  box.setAttribute("aria-label", name + " on");
  if (pin) box.dataset.pin = pin;
  if (toggle) box.addEventListener("change", () => run(async () => { await toggle(box.checked); await loadMethods(); }));
  label.appendChild(box);
  switchCell.appendChild(label);
  const setupCell = cell(row, typeof setup === "string" ? setup : "");
  if (setup && typeof setup !== "string") setupCell.appendChild(setup);
  $("#method-rows").appendChild(row);
  return row;
}

function button(text, className, action) {
  const made = document.createElement("button");
  made.type = "button";
  made.className = className;
  made.textContent = text;
  made.addEventListener("click", action);
  return made;
}

async function patchConfig(mask, body, done) {
  await api("PATCH", config() + "/config?updateMask=" + mask, body);
  say(done);
}

// Opens the setup form for `id` (a provider id, or "oidc" for a new OpenID Connect provider).
function setUp(id) {
  const form = $("#provider-form");
  form.hidden = false;
  const known = methods.configured[id];
  $("#provider-id").value = id.startsWith("oidc.") ? "oidc" : id;
  $("#provider-id").disabled = !!known;
  for (const field of document.querySelectorAll(".oidc-only")) field.hidden = $("#provider-id").value !== "oidc";
  $("#provider-oidc-name").value = id.startsWith("oidc.") ? id.slice(5) : "";
  $("#provider-issuer").value = known && known.provider.issuer ? known.provider.issuer : "";
  $("#provider-client-id").value = known ? known.provider.clientId || "" : "";
  $("#provider-secret").value = "";
  $("#provider-form-title").textContent = (known ? "Edit " : "Set up ") + (providerNames[id] || (id === "oidc" ? "an OpenID Connect provider" : id));
  $("#provider-client-id").focus();
}

async function loadMethods() {
  $("#redirect-uri").textContent = location.origin + "/__/auth/handler";
  const current = await api("GET", config() + "/config?view=full");
  const signIn = current.signIn || {};
  const relyingParty = await api("GET", config() + "/passkeyConfig");
  methods.configured = {};
  for (const collection of ["defaultSupportedIdpConfigs", "oauthIdpConfigs", "inboundSamlConfigs"]) {
    const found = await api("GET", config() + "/" + collection);
    for (const provider of found[collection] || []) methods.configured[provider.name.split("/").pop()] = { collection, provider };
  }
  $("#method-rows").replaceChildren();
  const hasSMS = !!state.delivery.sms;
  const email = signIn.email || {};
  const link = document.createElement("label");
  const linkBox = document.createElement("input");
  linkBox.type = "checkbox";
  linkBox.id = "set-email-link";
  linkBox.checked = email.passwordRequired === false;
  linkBox.addEventListener("change", () => run(async () => {
    await patchConfig("signIn.email.passwordRequired", { signIn: { email: { passwordRequired: !linkBox.checked } } },
                      "Email link sign-in turned " + (linkBox.checked ? "on." : "off."));
    await loadMethods();
  }));
  link.append(linkBox, " Email link (passwordless sign-in)");
  methodRow("Email/Password", email.enabled ? "Enabled" : "Disabled", !!email.enabled, (on) =>
    patchConfig("signIn.email.enabled", { signIn: { email: { enabled: on } } }, "Email/Password turned " + (on ? "on." : "off.")), link);
  const phone = signIn.phoneNumber || {};
  const numbers = Object.keys(phone.testPhoneNumbers || {}).length;
  methodRow("Phone", phone.enabled ? (hasSMS ? "Enabled" : "Enabled, but no SMS provider is set") : "Disabled", !!phone.enabled,
            (on) => patchConfig("signIn.phoneNumber.enabled", { signIn: { phoneNumber: { enabled: on } } }, "Phone turned " + (on ? "on." : "off.")),
            numbers + " test number(s); the SMS provider is under Settings, Email and SMS", "signIn.phoneNumber.enabled");
  const anonymous = !!(signIn.anonymous && signIn.anonymous.enabled);
  methodRow("Anonymous", anonymous ? "Enabled" : "Disabled", anonymous, (on) =>
    patchConfig("signIn.anonymous.enabled", { signIn: { anonymous: { enabled: on } } }, "Anonymous turned " + (on ? "on." : "off.")),
    "", "signIn.anonymous.enabled");
  const passkeySetup = document.createElement("a");
  passkeySetup.href = "#/settings/passkeys";
  passkeySetup.textContent = relyingParty.rpId ? "Edit the relying party" : "Set a relying party";
  methodRow("Passkeys", relyingParty.rpId ? "Enabled for " + relyingParty.rpId : "Disabled: no relying party", !!relyingParty.rpId, null, passkeySetup);

  const ids = Object.keys(providerNames).concat(Object.keys(methods.configured).filter((id) => !providerNames[id]).sort());
  for (const id of ids) {
    const known = methods.configured[id];
    const name = providerNames[id] || id;
    const pin = "identityProviders." + id;
    if (!known) {
      methodRow(name, "Not set up", false, null, button("Set up", "setup", () => setUp(id)), pin);
      continue;
    }
    const { collection, provider } = known;
    const toggle = (on) => api("PATCH", config() + "/" + collection + "/" + encodeURIComponent(id) + "?updateMask=enabled", { enabled: on })
      .then(() => say(id + (on ? " turned on." : " turned off.")));
    if (collection === "inboundSamlConfigs") {
      const idp = provider.idpConfig || {};
      methodRow(name + " (SAML)", (provider.enabled ? "Enabled" : "Disabled") + ": " + (idp.idpEntityId || "?") + " at " + (idp.ssoUrl || "?"),
                !!provider.enabled, toggle, "its settings: the admin API (inboundSamlConfigs)", pin);
      continue;
    }
    const edit = button("Edit", "setup", () => setUp(id));
    edit.dataset.pin = pin;
    methodRow(name, (provider.enabled ? "Enabled" : "Disabled") + ", client " + (provider.clientId || "none"), !!provider.enabled, toggle,
              edit, pin);
  }
  methodRow("OpenID Connect", "Any OIDC issuer, as oidc.NAME", false, null, button("Add", "setup", () => setUp("oidc")));
  methodRow("SAML", "Any SAML identity provider, as saml.NAME", false, null, "add with the admin API (inboundSamlConfigs)");

  // A method that needs SMS without a provider fails every code: say so where the switch is.
  const mfaSMS = !!(current.mfa && current.mfa.state === "ENABLED" && (current.mfa.enabledProviders || []).includes("PHONE_SMS"));
  const needing = [phone.enabled ? "phone sign-in" : "", mfaSMS ? "SMS second factors" : ""].filter((what) => what);
  const warning = $("#sms-warning");
  warning.hidden = hasSMS || needing.length === 0;
  const what = needing.join(" and ");
  warning.textContent = what.charAt(0).toUpperCase() + what.slice(1) + (needing.length > 1 ? " need" : " needs")
    + " an SMS provider, and none is set: every code fails to send. "
    + "Set sms.webhook or sms.twilio in the config file (or HEARTH_SMS_WEBHOOK_URL) and restart.";
  applyPins($("#sign-in-method"));
}

// Authorized domains: each removable, a new one added; the whole list is PATCHed, as Firebase's console does.
function listDomains(domains) {
  const list = $("#domains-list");
  list.replaceChildren();
  for (const domain of domains) {
    const item = document.createElement("li");
    item.append(domain + " ");
    const remove = button("Remove", "danger remove-domain", () => run(async () => {
      if (!window.confirm("Remove " + domain + "? Links and sign-ins returning there stop working.")) return;
      await saveDomains(domains.filter((other) => other !== domain), domain + " removed.");
    }));
    remove.dataset.pin = "authorizedDomains";
    item.appendChild(remove);
    list.appendChild(item);
  }
  state.domains = domains;
}

async function saveDomains(domains, done) {
  await api("PATCH", config() + "/config?updateMask=authorizedDomains", { authorizedDomains: domains });
  await loadSettings();
  say(done);
}

// How email and SMS leave, from the session (the server's settings, never a secret).
function showDelivery() {
  const smtp = state.delivery.smtp;
  fill($("#smtp-status"), smtp
    ? [["Status", "configured: emails are sent"], ["Server", smtp.server], ["Security", smtp.security], ["Sender", smtp.from],
       ["Signs in as", smtp.username || "(no authentication)"]]
    : [["Status", state.emulator ? "emulator mode: emails are listed, not sent"
                                 : "not configured: emails wait in the outbox. Set email.smtp in the config file, or HEARTH_SMTP_URL, and restart"]]);
  fill($("#sms-status"), [["Provider", state.delivery.sms
    || "none: phone sign-in and SMS second factors cannot send codes. Set sms.webhook or sms.twilio in the config file, or HEARTH_SMS_WEBHOOK_URL"]]);
}

document.addEventListener("DOMContentLoaded", () => {
  $("#domain-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run(async () => {
      const domain = $("#domain-name").value.trim();
      if (!domain) return;
      await saveDomains((state.domains || []).concat([domain]), domain + " added.");
      $("#domain-name").value = "";
    });
  });
});
