import Foundation
import PackagePlugin

/// Embeds a target's web files (`.html`, `.css`, `.js` under `Pages/Console`) as string constants, generated at
/// build time: the files stay real files that editors and `node --check` read, and the binary needs no resource
/// bundle.
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
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
}
