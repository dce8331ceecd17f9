/// The console's three files. Kept as text here so that the binary carries them; each is small (the page budget is
/// 100 KB, checked by ConsoleTests).
enum ConsoleAssets {
    static let html = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="robots" content="noindex">
    <title>Hearth console</title>
    <link rel="stylesheet" href="/console/assets/console.css">
    <script src="/console/assets/console.js" defer></script>
    </head>
    <body>
    <header>
    <h1>Hearth console</h1>
    <p id="banner" role="note" hidden>Emulator mode: the console is open without signing in, as Firebase's Emulator UI is. Never expose it.</p>
    <p><span id="who"></span> <button type="button" id="signout" hidden>Sign out</button></p>
    <nav id="nav" aria-label="Console" hidden>
    <button type="button" data-view="dashboard">Dashboard</button>
    <button type="button" data-view="users">Users</button>
    <button type="button" data-view="outbox">Outbox</button>
    <button type="button" data-view="audit">Audit log</button>
    <button type="button" data-view="settings">Settings</button>
    </nav>
    </header>
    <p id="status" role="status" aria-live="polite"></p>
    <main>
    <section id="signin" hidden aria-labelledby="signin-title">
    <h2 id="signin-title">Sign in</h2>
    <form id="signin-form">
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <label for="code">Authenticator code</label>
    <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6">
    <button type="submit" id="signin-submit">Sign in</button>
    </form>
    </section>
    <section id="dashboard" hidden aria-labelledby="dashboard-title">
    <h2 id="dashboard-title">Dashboard</h2>
    <p id="totals"></p>
    <svg id="chart" role="img" aria-labelledby="chart-title" viewBox="0 0 700 220" width="100%">
    <title id="chart-title">Sign-ins (blue), sign-ups (green) and failed sign-ins (red) per day, last 14 days</title>
    </svg>
    <table>
    <caption>Per day (UTC)</caption>
    <thead><tr><th scope="col">Day</th><th scope="col">Sign-ins</th><th scope="col">Sign-ups</th><th scope="col">Failures</th><th scope="col">Active users</th></tr></thead>
    <tbody id="day-rows"></tbody>
    </table>
    </section>
    <section id="users" hidden aria-labelledby="users-title">
    <h2 id="users-title">Users</h2>
    <form id="search-form" role="search">
    <label for="query">Find by email, phone number or uid</label>
    <input id="query" type="search" autocomplete="off">
    <button type="submit" id="search">Search</button>
    <button type="button" id="all">All users</button>
    <label for="sort">Sort all users by</label>
    <select id="sort">
    <option value="">uid</option>
    <option value="USER_EMAIL">email</option>
    <option value="CREATED_AT">creation, newest first</option>
    </select>
    </form>
    <table>
    <caption id="caption">Users</caption>
    <thead><tr><th scope="col">Email</th><th scope="col">Phone</th><th scope="col">uid</th><th scope="col">Status</th></tr></thead>
    <tbody id="rows"></tbody>
    </table>
    <button type="button" id="more" hidden>Next page</button>
    <h3>Import and export</h3>
    <p>Firebase's JSON format (what <code>firebase auth:export</code> writes). Passwords travel as this project's
    scrypt hashes, so an export imports back here, or into a project with the same hash parameters.</p>
    <button type="button" id="export">Export all users</button>
    <label for="import-file">Import users from a file</label>
    <input id="import-file" type="file" accept="application/json,.json">
    <progress id="progress" max="1" value="0" hidden></progress>
    <h3>New user</h3>
    <form id="create-form">
    <label for="new-email">Email</label>
    <input id="new-email" type="email" autocomplete="off" required>
    <label for="new-password">Password (at least 6 characters)</label>
    <input id="new-password" type="password" autocomplete="new-password" minlength="6" required>
    <button type="submit" id="create">Create user</button>
    </form>
    </section>
    <section id="outbox" hidden aria-labelledby="outbox-title">
    <h2 id="outbox-title">Outbox</h2>
    <p id="outbox-summary"></p>
    <table>
    <caption>Emails waiting or given up, oldest first</caption>
    <thead><tr><th scope="col">Created</th><th scope="col">Email</th><th scope="col">To</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last error</th><th scope="col">Action</th></tr></thead>
    <tbody id="outbox-rows"></tbody>
    </table>
    </section>
    <section id="audit" hidden aria-labelledby="audit-title">
    <h2 id="audit-title">Audit log</h2>
    <form id="audit-form">
    <label for="audit-type">Event types (comma-separated, empty for all)</label>
    <input id="audit-type" autocomplete="off" placeholder="sign-in-failed,admin-call">
    <label for="audit-uid">User uid</label>
    <input id="audit-uid" autocomplete="off">
    <button type="submit" id="audit-search">Show</button>
    </form>
    <table>
    <caption>Events, newest first</caption>
    <thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Outcome</th><th scope="col">Who</th><th scope="col">User</th><th scope="col">From</th></tr></thead>
    <tbody id="audit-rows"></tbody>
    </table>
    <button type="button" id="audit-more" hidden>Older events</button>
    </section>
    <section id="settings" hidden aria-labelledby="settings-title">
    <h2 id="settings-title">Settings</h2>
    <h3>Sign-in methods</h3>
    <p><label><input type="checkbox" id="set-email"> Email and password</label>
    <label><input type="checkbox" id="set-anonymous"> Anonymous</label>
    <label><input type="checkbox" id="set-privacy"> Email-enumeration protection</label></p>
    <button type="button" id="save-settings">Save sign-in methods</button>
    <h3>Multi-factor authentication</h3>
    <p><label><input type="checkbox" id="set-mfa-sms"> SMS codes</label>
    <label><input type="checkbox" id="set-mfa-totp"> Authenticator apps (TOTP)</label></p>
    <button type="button" id="save-mfa">Save second factors</button>
    <h3>Authorized domains</h3>
    <p>Where links and sign-ins may return (set with <code>authorizedDomains</code> in the config file):</p>
    <ul id="domains-list"></ul>
    <h3>Identity providers</h3>
    <p>Register this redirect URI with each provider: <code id="redirect-uri"></code></p>
    <ul id="providers-list"></ul>
    <h3>Email templates</h3>
    <p>Preview each email in each language as it is sent. A draft below is previewed as you type and never saved: put
    the JSON it gives under <code>email.templates</code> in the config file.</p>
    <label for="tpl-type">Email</label>
    <select id="tpl-type">
    <option value="PASSWORD_RESET">Password reset</option>
    <option value="VERIFY_EMAIL">Email verification</option>
    <option value="EMAIL_SIGNIN">Email link sign-in</option>
    <option value="VERIFY_AND_CHANGE_EMAIL">Change of email</option>
    <option value="RECOVER_EMAIL">Email change reverted</option>
    </select>
    <label for="tpl-locale">Language</label>
    <select id="tpl-locale"><option value="en">en</option></select>
    <label for="tpl-subject">Draft subject (empty: the configured one)</label>
    <input id="tpl-subject" autocomplete="off">
    <label for="tpl-text">Draft text (Mustache: {{appName}}, {{link}}, {{email}}, {{newEmail}}, {{displayName}})</label>
    <textarea id="tpl-text" rows="5" spellcheck="false"></textarea>
    <p><strong>Subject:</strong> <span id="preview-subject"></span></p>
    <pre id="preview-text"></pre>
    <pre id="tpl-config" hidden></pre>
    <h3>Send a test</h3>
    <label for="test-email">Email address</label>
    <input id="test-email" type="email" autocomplete="off">
    <button type="button" id="send-test-email">Send a test email</button>
    <label for="test-phone">Phone number (E.164)</label>
    <input id="test-phone" type="tel" autocomplete="off" placeholder="+15555550100">
    <button type="button" id="send-test-sms">Send a test SMS</button>
    <h3>Service accounts</h3>
    <p>Keys that call the admin API. A new key is downloaded once: Hearth keeps only its public half.</p>
    <ul id="accounts-list"></ul>
    <form id="account-form">
    <label for="account-name">New service account's name (6-30 lowercase letters, digits or hyphens)</label>
    <input id="account-name" autocomplete="off" pattern="[a-z][a-z0-9-]{5,29}">
    <button type="submit" id="create-account">Create and download the key</button>
    </form>
    <h3>Tenants</h3>
    <ul id="tenants-list"></ul>
    <form id="tenant-form">
    <label for="tenant-name">New tenant's display name (4-20 letters, digits or hyphens)</label>
    <input id="tenant-name" autocomplete="off" pattern="[A-Za-z][A-Za-z0-9-]{3,19}">
    <button type="submit" id="create-tenant">Create tenant</button>
    </form>
    </section>
    <section id="user" hidden aria-labelledby="user-title">
    <h2 id="user-title">User</h2>
    <button type="button" id="back">Back to users</button>
    <dl id="fields"></dl>
    <h3>Providers</h3>
    <ul id="providers"></ul>
    <h3>Second factors</h3>
    <ul id="factors"></ul>
    <h3><label for="claims">Custom claims (a JSON object)</label></h3>
    <textarea id="claims" rows="4" spellcheck="false"></textarea>
    <button type="button" id="save-claims">Save claims</button>
    <h3>Actions</h3>
    <p class="actions">
    <button type="button" id="toggle-disabled"></button>
    <button type="button" id="revoke">Revoke sessions</button>
    <button type="button" id="reset-link">Password reset link</button>
    <button type="button" id="send-reset">Email a password reset</button>
    <button type="button" id="verify-link">Verification link</button>
    <button type="button" id="send-verify">Email a verification link</button>
    <button type="button" id="delete" class="danger">Delete user</button>
    </p>
    <p id="link" hidden></p>
    </section>
    </main>
    </body>
    </html>

    """#
}
