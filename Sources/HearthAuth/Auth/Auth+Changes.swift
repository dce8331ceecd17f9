import Foundation

/// Sign-ins, sign-outs and token changes as async sequences, and as a notification, as FirebaseAuth 12 has them.
///
/// ```swift
/// for await user in Auth.auth().authStateChanges {
///     print(user?.uid ?? "signed out")
/// }
/// ```
extension Auth {
    /// Posted (object: the ``Auth``) whenever the current user or its ID token changes.
    public static let authStateDidChangeNotification = Notification.Name("FIRAuthStateDidChangeNotification")

    /// The current user now, then at every sign-in and sign-out; ends when the loop does.
    public var authStateChanges: AuthStateChangesSequence { AuthStateChangesSequence(self) }

    /// The current user now, then at every sign-in, sign-out and ID-token change (refresh, claims, linking).
    public var idTokenChanges: IDTokenChangesSequence { IDTokenChangesSequence(self) }

    /// ``authStateChanges``: a listener per iteration, removed when the iteration ends.
    public struct AuthStateChangesSequence: AsyncSequence, Sendable {
        public typealias Element = User?
        private let auth: Auth

        public init(_ auth: Auth) { self.auth = auth }

        public func makeAsyncIterator() -> Iterator { Iterator(auth.changes(.state)) }

        public struct Iterator: AsyncIteratorProtocol {
            private var base: AsyncStream<User?>.Iterator
            init(_ stream: AsyncStream<User?>) { base = stream.makeAsyncIterator() }
            public mutating func next() async -> User?? { await base.next() }
        }
    }

    /// ``idTokenChanges``: a listener per iteration, removed when the iteration ends.
    public struct IDTokenChangesSequence: AsyncSequence, Sendable {
        public typealias Element = User?
        private let auth: Auth

        public init(_ auth: Auth) { self.auth = auth }

        public func makeAsyncIterator() -> Iterator { Iterator(auth.changes(.token)) }

        public struct Iterator: AsyncIteratorProtocol {
            private var base: AsyncStream<User?>.Iterator
            init(_ stream: AsyncStream<User?>) { base = stream.makeAsyncIterator() }
            public mutating func next() async -> User?? { await base.next() }
        }
    }

    /// The listener of `kind` as a stream; the listener goes when the stream ends (its consumer stopped).
    func changes(_ kind: AuthCore.ListenerKind) -> AsyncStream<User?> {
        let (stream, continuation) = AsyncStream.makeStream(of: User?.self, bufferingPolicy: .unbounded)
        let handle = core.addListener(kind, { _, user in continuation.yield(user) }, auth: self)
        let registration = Registration(handle)
        continuation.onTermination = { [core] _ in core.removeListener(registration.handle) }
        return stream
    }

    /// A listener handle carried into a `@Sendable` termination handler.
    private final class Registration: @unchecked Sendable {
        let handle: any NSObjectProtocol
        init(_ handle: any NSObjectProtocol) { self.handle = handle }
    }
}
