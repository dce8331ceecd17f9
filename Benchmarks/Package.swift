// swift-tools-version:6.1
// Micro-benchmarks of Hearth's expensive primitives (ordo-one/benchmark). Run from this folder:
//   swift package benchmark
// The HTTP load benchmark is scripts/load-test.sh in the parent package.
import PackageDescription

let package = Package(
    name: "HearthBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "hearth", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "CoreBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HearthCore", package: "hearth"),
                .product(name: "HearthWire", package: "hearth"),
            ],
            path: "Benchmarks/CoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ]
)
