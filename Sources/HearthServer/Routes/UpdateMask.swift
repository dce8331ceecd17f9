import Foundation
import HearthCore

/// A PATCH's `updateMask`: the field paths it names, as every resource reads it (config, tenants, passkey config,
/// identity providers). Google's APIs send the paths comma-separated in the query; a parent path names the fields
/// under it, which each resource expands its own way.
///
/// ```swift
/// let paths = try UpdateMask(call).resolved(expand: TenantPatch.expand, writable: TenantPatch.writablePaths,
///                                            lenient: call.configuration.isEmulator) ?? patch.presentPaths
/// ```
struct UpdateMask {
    /// The paths as given, trimmed, empty ones dropped; nil when the request names none (no mask, or an empty one).
    let paths: [String]?

    init(_ call: Call) { self.init(call.request.uri.queryParameters["updateMask"].map(String.init)) }

    /// From the parameter's value (nil when absent).
    init(_ value: String?) {
        let given = (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        paths = given.isEmpty ? nil : given
    }

    /// Every named path through `expand`; one that expands to nothing is `INVALID_ARGUMENT` naming the writable
    /// paths, unless `lenient` (emulator mode, where Firebase's emulator ignores them). Nil without a mask.
    func resolved(expand: (String) -> [String], writable: some Collection<String>, lenient: Bool) throws -> Set<String>? {
        guard let paths else { return nil }
        var named: Set<String> = []
        for path in paths {
            let expanded = expand(path)
            if expanded.isEmpty && !lenient {
                throw APIError.business(.invalidArgument,
                    "updateMask names \(path), which Hearth cannot change (writable: \(writable.sorted().joined(separator: ", ")))")
            }
            named.formUnion(expanded)
        }
        return named
    }
}
