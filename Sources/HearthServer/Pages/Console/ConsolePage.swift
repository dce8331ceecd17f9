import Foundation
import HearthCore
import HTTPTypes
import Hummingbird

/// `/console`: the admin console, plain HTML, CSS and JavaScript (`console.html`, `console.css`, `console.js`,
/// `sign-in-methods.js` and `templates.js` beside this file), compiled into the binary by the EmbedFiles plugin (no bundler, no resource bundle, no request leaves
/// the server). The page is the same for everyone; what it shows comes from the admin API, which the console
/// calls with the operator's session (``ConsoleRoutes``).
enum ConsolePage {
    /// No inline script or style, nothing from elsewhere: the strictest policy the page works under.
    static let policy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func show(_ call: Call) async throws -> Response {
        respond(page, type: "text/html; charset=utf-8")
    }

    /// `console.html` with the server's error guidance in its data element.
    static let page = ConsoleFiles.consoleHtml.replacingOccurrences(
        of: #"<script type="application/json" id="error-messages"></script>"#,
        with: #"<script type="application/json" id="error-messages">"# + ErrorGuidance.consoleJSON + "</script>")

    static func asset(_ call: Call) async throws -> Response {
        switch call.parameter("file") {
        case "console.js": respond(ConsoleFiles.consoleJs, type: "text/javascript; charset=utf-8")
        case "sign-in-methods.js": respond(ConsoleFiles.signInMethodsJs, type: "text/javascript; charset=utf-8")
        case "templates.js": respond(ConsoleFiles.templatesJs, type: "text/javascript; charset=utf-8")
        case "console.css": respond(ConsoleFiles.consoleCss, type: "text/css; charset=utf-8")
        default: throw APIError.notFound
        }
    }

    private static func respond(_ text: String, type: String) -> Response {
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-store", .contentSecurityPolicy: policy]
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
