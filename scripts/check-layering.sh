#!/usr/bin/env bash
# Checks the dependency rules of DESIGN.md from the import lines of every target. Exits 1 on a violation.
#   HearthCore   imports no other Hearth target, no NIO, HTTP or database driver (the tracing API is allowed).
#   HearthWire   imports Foundation only.
#   HearthSchema imports Foundation only.
#   HearthSQL    (the statements, once for every SQL backend) imports HearthCore and HearthSchema only: no driver.
#   backends     import HearthCore, HearthSchema, HearthSQL and their driver only (never each other, the server or
#                the wire types).
#   HearthMail   imports HearthCore, Mustache and NIO only.
#   HearthServer never imports a backend or a driver.
#   HearthStoreContract imports HearthCore only.
#   HearthAdmin  imports HearthWire, jwt-kit and async-http-client only.
#   HearthAuth   imports HearthWire and Foundation only, and its target depends on HearthWire alone.
set -u
cd "$(dirname "$0")/.."
status=0

# imports_in FOLDER: "file:line:module" for every import in the folder's Swift files.
imports_in() {
  grep -rEn '^\s*(@testable |@_exported |public |internal |package |private |fileprivate )*import +[A-Za-z_][A-Za-z0-9_]*' "$1" \
    --include='*.swift' 2>/dev/null | sed -E 's/^([^:]+:[0-9]+):.*import +([A-Za-z_][A-Za-z0-9_]*).*/\1:\2/'
}

# allow FOLDER RULE MODULE...: every import in FOLDER must be one of MODULEs.
allow() {
  local folder=$1 rule=$2; shift 2
  local allowed=" $* "
  [ -d "$folder" ] || return 0
  while IFS= read -r hit; do
    [ -n "$hit" ] || continue
    local module=${hit##*:}
    if [[ "$allowed" != *" $module "* ]]; then
      echo "layering: $rule: ${hit%:*} imports $module"
      status=1
    fi
  done < <(imports_in "$folder")
}

platform="Foundation FoundationEssentials Glibc Darwin Dispatch Synchronization"
allow Sources/HearthCore "HearthCore imports no other Hearth target and no NIO/HTTP/driver" \
  $platform Crypto CryptoExtras X509 SwiftASN1 Tracing
allow Sources/HearthWire "HearthWire imports Foundation only" $platform
allow Sources/HearthSchema "the schema imports Foundation only" $platform
allow Sources/HearthSQL "the statement layer imports HearthCore and the schema only, no driver" \
  $platform HearthCore HearthSchema
allow Sources/HearthSQLite "a backend imports HearthCore, the statement layer and its driver only" \
  $platform HearthCore HearthSchema HearthSQL SQLiteNIO NIOCore NIOPosix NIOConcurrencyHelpers Logging
allow Sources/HearthPostgres "a backend imports HearthCore, the statement layer and its driver only" \
  $platform HearthCore HearthSchema HearthSQL PostgresNIO NIOSSL NIOCore Logging
allow Sources/HearthStoreContract "the contract suite imports HearthCore only" $platform HearthCore
allow Sources/HearthMail "mail imports HearthCore, templates and NIO only (no backend, no server)" \
  $platform HearthCore Mustache NIOCore NIOPosix NIOSSL Logging
allow Sources/HearthSMS "SMS imports HearthCore and its HTTP client only (no backend, no server)" \
  $platform HearthCore AsyncHTTPClient Crypto NIOCore NIOHTTP1 NIOFoundationCompat
allow Sources/HearthFederation "federation imports HearthCore, its HTTP client, jwt-kit, X.509 and swift-log only" \
  $platform HearthCore AsyncHTTPClient JWTKit Crypto _CryptoExtras X509 NIOCore NIOFoundationCompat Logging
allow Sources/HearthServer "the server never imports a backend" \
  $platform HearthCore HearthWire HearthMail HearthSMS HearthFederation Hummingbird HTTPTypes NIOCore NIOPosix NIOFoundationCompat Logging \
  Mustache ServiceLifecycle HummingbirdBcrypt HummingbirdCore NIOHTTPTypes Metrics Prometheus Tracing OTel
allow Sources/HearthTestSupport "test support drives outside programs with Foundation only" $platform FoundationNetworking
allow Sources/HearthPostgresTestSupport "the throwaway PostgreSQL imports its driver and the test support's child processes only" \
  $platform PostgresNIO Logging HearthTestSupport
allow Sources/HearthAuth "the client SDK imports HearthWire and Foundation only (Apple system frameworks behind canImport)" \
  $platform HearthWire FoundationNetworking Security AuthenticationServices UIKit GameKit
allow Sources/SeedExamples "the guides' snippets use HearthAuth only" $platform HearthAuth
allow Sources/HearthAdmin "the admin SDK imports HearthWire, jwt-kit and async-http-client only (never the server)" \
  $platform HearthWire JWTKit AsyncHTTPClient NIOCore NIOHTTP1 NIOFoundationCompat

# The client SDK builds without the server: its target depends on HearthWire alone.
if ! grep -qE '\.target\(name: "HearthAuth", dependencies: \["HearthWire"\]' Package.swift; then
  echo "layering: HearthAuth's target must depend on HearthWire only (Package.swift)"
  status=1
fi

if [ $status -eq 0 ]; then echo "layering: all dependency rules hold"; fi
exit $status
