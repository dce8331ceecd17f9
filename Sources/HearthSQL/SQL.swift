import HearthSchema

/// A value bound to a statement or read from a row: the four kinds Hearth's schema uses.
public enum SQLValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case real(Double)
    case null

    public var string: String? { if case .text(let value) = self { value } else { nil } }
    public var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value): Int64(value)
        case .text(let value): Int64(value)
        case .null: nil
        }
    }
    public var int: Int? { integer.map { Int($0) } }
}

/// One statement, written once for every dialect: its text, with values interpolated as binds.
///
/// Interpolated values never become SQL text; the dialect renders each as its placeholder (`?` or `$n`). The few
/// places where SQLite and PostgreSQL spell something differently are ``SQLDialect`` fragments, declared once in
/// ``SQLFragment``.
///
/// ```swift
/// let statement: SQL = "SELECT data FROM users WHERE project_id = \(projectID) AND local_id IN \(list: ids)"
/// let (text, binds) = statement.rendered(for: .postgres)  // "... = $1 AND local_id IN ($2, $3)"
/// ```
public struct SQL: Sendable, ExpressibleByStringInterpolation {
    enum Piece: Sendable {
        case text(String)
        case bind(SQLValue)
        /// A value whose placeholder is already in the text (statements written for one dialect: the schema's).
        case placedBind(SQLValue)
        case fragment(SQLFragment)
    }

    var pieces: [Piece]

    public init(stringLiteral value: String) { pieces = [.text(value)] }
    public init(stringInterpolation: Interpolation) { pieces = stringInterpolation.pieces }
    /// Trusted text (a column name chosen by code, never by input).
    public init(raw text: String) { pieces = [.text(text)] }
    /// Text already written with one dialect's placeholders (the schema runner's), and the values they bind.
    public init(prerendered text: String, binds: [SQLValue]) { pieces = [.text(text)] + binds.map(Piece.placedBind) }

    public struct Interpolation: StringInterpolationProtocol {
        var pieces: [Piece] = []
        public init(literalCapacity: Int, interpolationCount: Int) { pieces.reserveCapacity(interpolationCount * 2 + 1) }
        public mutating func appendLiteral(_ literal: String) { pieces.append(.text(literal)) }
        public mutating func appendInterpolation(_ value: String) { pieces.append(.bind(.text(value))) }
        public mutating func appendInterpolation(_ value: String?) { pieces.append(.bind(value.map(SQLValue.text) ?? .null)) }
        public mutating func appendInterpolation(_ value: Int64) { pieces.append(.bind(.integer(value))) }
        public mutating func appendInterpolation(_ value: Int64?) { pieces.append(.bind(value.map(SQLValue.integer) ?? .null)) }
        public mutating func appendInterpolation(_ value: Int) { pieces.append(.bind(.integer(Int64(value)))) }
        public mutating func appendInterpolation(_ value: SQLValue) { pieces.append(.bind(value)) }
        /// `(?, ?, …)`: a list for `IN`, one bind per value (never empty: callers return early on none).
        public mutating func appendInterpolation(list values: [String]) {
            pieces.append(.text("("))
            for (index, value) in values.enumerated() {
                if index > 0 { pieces.append(.text(", ")) }
                pieces.append(.bind(.text(value)))
            }
            pieces.append(.text(")"))
        }
        /// A dialect's own spelling (see ``SQLFragment``).
        public mutating func appendInterpolation(_ fragment: SQLFragment) { pieces.append(.fragment(fragment)) }
        /// Another statement's pieces, binds included.
        public mutating func appendInterpolation(_ sql: SQL) { pieces += sql.pieces }
        /// Trusted text: a column or table name chosen by code.
        public mutating func appendInterpolation(raw text: String) { pieces.append(.text(text)) }
    }

    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        var joined = lhs
        joined.pieces += rhs.pieces
        return joined
    }

    /// `parts` joined by `separator`.
    public static func joined(_ parts: [SQL], separator: String) -> SQL {
        var joined = SQL(raw: "")
        for (index, part) in parts.enumerated() {
            if index > 0 { joined.pieces.append(.text(separator)) }
            joined.pieces += part.pieces
        }
        return joined
    }

    /// The text with the dialect's placeholders, and the values they bind, in order.
    public func rendered(for dialect: SQLDialect) -> (sql: String, binds: [SQLValue]) {
        var text = ""
        var binds: [SQLValue] = []
        for piece in pieces {
            switch piece {
            case .text(let part): text += part
            case .bind(let value):
                binds.append(value)
                text += dialect.placeholder(binds.count)
            case .placedBind(let value): binds.append(value)
            case .fragment(let fragment): text += fragment.text(for: dialect)
            }
        }
        return (text, binds)
    }
}

/// What SQLite and PostgreSQL spell differently: each difference is declared here, once.
public enum SQLFragment: Sendable {
    /// Locks the rows a read returns until the transaction ends (PostgreSQL); SQLite's single writer already holds
    /// the database.
    case forUpdate
    /// Claims rows that no other transaction holds (PostgreSQL, `OF alias` when given); nothing for SQLite.
    case skipLocked(of: String?)
    /// Byte order for text, whatever the database's locale (PostgreSQL's `COLLATE "C"`; SQLite's default).
    case byteOrder
    /// A text field of a JSON column.
    case jsonText(column: String, field: String)
    /// The JSON column with the given fields set to the empty string.
    case jsonBlanked(column: String, fields: [String])
    /// `LIMIT` with no limit, for an `OFFSET`.
    case noLimit

    func text(for dialect: SQLDialect) -> String {
        switch (self, dialect) {
        case (.forUpdate, .sqlite), (.skipLocked, .sqlite), (.byteOrder, .sqlite): ""
        case (.forUpdate, .postgres): " FOR UPDATE"
        case (.skipLocked(let alias), .postgres): alias.map { " FOR UPDATE OF \($0) SKIP LOCKED" } ?? " FOR UPDATE SKIP LOCKED"
        case (.byteOrder, .postgres): " COLLATE \"C\""
        case (.jsonText(let column, let field), .sqlite): "json_extract(\(column), '$.\(field)')"
        case (.jsonText(let column, let field), .postgres): "(\(column)::jsonb ->> '\(field)')"
        case (.jsonBlanked(let column, let fields), .sqlite):
            "json_set(\(column)" + fields.map { ", '$.\($0)', ''" }.joined() + ")"
        case (.jsonBlanked(let column, let fields), .postgres):
            fields.reduce("\(column)::jsonb") { "jsonb_set(\($0), '{\($1)}', '\"\"')" } + "::text"
        case (.noLimit, .sqlite): "LIMIT -1"
        case (.noLimit, .postgres): "LIMIT ALL"
        }
    }
}

/// One row a statement returned: its columns in order.
public struct SQLRow: Sendable {
    public var values: [SQLValue]
    public init(_ values: [SQLValue]) { self.values = values }
    public subscript(_ index: Int) -> SQLValue { index < values.count ? values[index] : .null }
}
