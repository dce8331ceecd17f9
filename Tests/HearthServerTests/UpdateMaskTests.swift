import HearthCore
@testable import HearthServer
import HearthWire
import Testing

/// One reading of `updateMask` for every resource: paths trimmed, parents expanded by the resource, unknown ones
/// refused in production and skipped in emulator mode, no mask told apart from an empty one.
@Suite struct UpdateMaskTests {
    static let writable: Set<String> = ["a.x", "a.y", "b"]
    static func expand(_ path: String) -> [String] {
        path == "a" ? ["a.x", "a.y"] : writable.contains(path) ? [path] : []
    }

    @Test func pathsAreTrimmedAndParentsExpanded() throws {
        #expect(try UpdateMask(" a , b,").resolved(expand: Self.expand, writable: Self.writable, lenient: false) == ["a.x", "a.y", "b"])
    }

    @Test func noMaskAndAnEmptyOneAreTheSame() throws {
        #expect(try UpdateMask(nil).resolved(expand: Self.expand, writable: Self.writable, lenient: false) == nil)
        #expect(try UpdateMask(" , ").resolved(expand: Self.expand, writable: Self.writable, lenient: false) == nil)
    }

    @Test func anUnknownPathIsRefusedInProductionAndSkippedInEmulatorMode() throws {
        #expect(throws: APIError.self) {
            try UpdateMask("b,typo").resolved(expand: Self.expand, writable: Self.writable, lenient: false)
        }
        #expect(try UpdateMask("b,typo").resolved(expand: Self.expand, writable: Self.writable, lenient: true) == ["b"])
    }
}
