import Foundation
import PackagePlugin

/// Embeds a target's web files (`.html`, `.css`, `.js` under `Pages/Console`) as string constants, generated at
/// build time: the files stay real files that editors and `node --check` read, and the binary needs no resource
/// bundle.
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        if target.name == "HearthCLI" { return try buildInfo(context: context) }
        let directory = target.directoryURL.appending(path: "Pages/Console")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path(percentEncoded: false))
        let inputs = names.filter { ["html", "css", "js"].contains(($0 as NSString).pathExtension) }.sorted()
            .map { directory.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "ConsoleFiles.swift")
        return [.buildCommand(
            displayName: "Embedding the console's files",
            executable: try context.tool(named: "EmbedFilesTool").url,
            arguments: [output.path(percentEncoded: false), "ConsoleFiles"] + inputs.map { $0.path(percentEncoded: false) },
            inputFiles: inputs,
            outputFiles: [output])]
    }

    /// `hearth --version`'s commit and build date: the tool reads the checkout's `.git`, and runs again when HEAD or
    /// the branch it names moves. A source tree without `.git` builds as commit "unknown".
    private func buildInfo(context: PluginContext) throws -> [Command] {
        let git = context.package.directoryURL.appending(path: ".git")
        let head = git.appending(path: "HEAD")
        var inputs = [head, git.appending(path: "packed-refs")]
        if let text = try? String(contentsOf: head, encoding: .utf8), text.hasPrefix("ref: ") {
            inputs.append(git.appending(path: text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        inputs = inputs.filter { FileManager.default.fileExists(atPath: $0.path(percentEncoded: false)) }
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildInfo.swift")
        return [.buildCommand(
            displayName: "Writing the build's commit and date",
            executable: try context.tool(named: "EmbedFilesTool").url,
            arguments: ["--build-info", output.path(percentEncoded: false), git.path(percentEncoded: false)],
            inputFiles: inputs,
            outputFiles: [output])]
    }
}
