import Foundation
import TesseraClock
import TesseraIsolation
import TesseraLoader
import TesseraManifest
@_spi(TesseraHost) import TesseraSDK
import TesseraStorage
import TesseraSystem

/// The one path from a plugin build to a serving generation, which a start, a hot swap and a
/// reload all take, in either tier (DESIGN.md §5, §8); ``GenerationOrchestrator`` runs it:
///
/// 1. **stage** the library at its content-addressed path;
/// 2. **gates**: gate 1 on the staged bytes, then `dlopen` and the handshake (gates 2 and 3), in
///    this process or, for the process tier, in the child that will serve the plugin;
/// 3. **load**: the factory that makes instances;
/// 4. **context**: each granted capability's provider builds the plugin's object
///    (``CapabilityProvider/prepare(_:)``): nothing shared changes;
/// 5. **start** the instance;
/// 6. **commit**: each binding takes effect (schema, write rules, sync registration), the slot
///    points at the generation, then its registrations (location, jobs) follow.
///
/// Nothing shared changes before step 6; a failure there undoes, in reverse order, what the
/// bindings committed, so the serving generation finds everything as it was. One exception to the
/// order: a generation whose commit changes the database's schema starts after its commit (its
/// code expects the new schema), inside a swap's pause, and a copy of the database taken first
/// lets a failure put it back.
struct GenerationPipeline: Sendable {
    let options: HostOptions
    let providers: CapabilityProviders
    let generations: GenerationStore
    let clock: any ClockSource
    let timerStore: SQLiteTimerStore
    let log: HostLog

    // MARK: 1–3: stage, gates, load

    /// A build that passed the three gates, ready to make instances.
    struct LoadedBuild {
        /// Makes the instance: the library's own, or a ``ProcessPlugin`` that stands for the child.
        let factory: PluginFactory
        /// What gate 1 read from the staged file.
        let library: VerifiedLibrary
        /// The library mapped into this process; `nil` in the process tier.
        let inProcess: LoadedGeneration?
        /// The staged copy the gates ran on.
        let stagedPath: String
    }

    /// Stages the build and runs the three gates on the staged bytes, in the plugin's tier: gate 1
    /// here, always; gates 2 and 3 (`dlopen`, handshake) here for the in-process tier, or in a child
    /// process that then serves the plugin for the process tier. `gate1Passed` hears of gate 1 before
    /// any of the library's code runs. A refusal names `path`, the file the operator gave, not its
    /// staged copy.
    func load(_ path: String, manifest: PluginManifest, tier: Isolation, limits: PluginLimits?,
              onQuarantine: @escaping @Sendable (String) -> Void,
              gate1Passed: (VerifiedLibrary) -> Void = { _ in }) async throws -> LoadedBuild {
        let staged = try LibraryLoader.stage(path, in: generations)
        do {
            let library = try FileGate.verify(staged, manifest: manifest, host: .current)
            gate1Passed(library)
            switch tier {
            case .process:
                let sandbox = ChildSandbox(library: staged.path, dataDirectory: options.dataDirectory, limits: limits)
                let plugin = try await ProcessPlugin.launch(manifest: manifest, sandbox: sandbox, clock: clock, policy: options.isolation,
                                                            log: log, calls: providers.childCalls, onQuarantine: onQuarantine)
                return LoadedBuild(factory: PluginFactory { plugin }, library: library, inProcess: nil, stagedPath: staged.path)
            case .inProcess:
                let loaded = try LibraryLoader.load(library, manifest: manifest)
                // Its code is in this process now: a crash in it is reported by its id.
                CrashReport.register(library: loaded.stagedPath, pluginID: manifest.id)
                let factory: PluginFactory
                switch loaded.handshake.code {
                case .swift(let swiftFactory): factory = swiftFactory
                case .c(let table):
                    factory = CPluginCalls.factory(table, calls: providers.childCalls, maxOpenFileWriters: options.isolation.maxOpenFileWriters)
                }
                return LoadedBuild(factory: factory, library: library, inProcess: loaded, stagedPath: loaded.stagedPath)
            }
        } catch let refusal as GateRefusal {
            throw refusal.naming(path, insteadOf: staged.path)
        }
    }

    // MARK: 4: context

    /// Makes the instance and its context: each granted capability prepared by its provider, in
    /// the providers' order. Nothing shared changes.
    func buildContext(_ candidate: GenerationCandidate, resources: GenerationResources) throws {
        let instance = candidate.factory.makePlugin()
        var bindings: [any CapabilityBinding] = []
        for provider in providers.all {
            guard let grant = candidate.grants[provider.name] else { continue }
            let request = CapabilityRequest(manifest: candidate.manifest, grant: grant, migrations: instance.migrations,
                                            replacing: resources.serving != nil, resources: resources)
            bindings.append(try provider.prepare(request))
        }
        let context = PluginContext(pluginID: candidate.manifest.id, config: candidate.entry.config,
                                    capabilities: bindings.compactMap(\.granted), log: log.pluginLog(candidate.manifest.id, generation: candidate.generation))
        candidate.built(instance: instance, context: context, bindings: bindings, storage: resources.storage)
    }

    // MARK: 5: start

    /// Starts the instance; a throw is a ``PluginStartFailure`` naming it.
    func start(_ candidate: GenerationCandidate) async throws {
        guard let instance = candidate.instance, let context = candidate.context else { return }
        do { try await onSharedPool { try await instance.start(context: context) } } catch {
            throw PluginStartFailure(reason: "start threw: \(error)")
        }
        candidate.started = true
    }

    // MARK: 6: commit

    /// Commits every binding in order; if one throws, undoes the ones before it and rethrows.
    func commit(_ candidate: GenerationCandidate) throws {
        for binding in candidate.bindings {
            do { try binding.commit() } catch {
                undo(candidate)
                throw error
            }
            candidate.committedCount += 1
        }
    }

    /// Takes back what the committed bindings did, newest first. What could not be taken back is
    /// logged as an error and returned, in sentences, for the caller's answer.
    @discardableResult
    func undo(_ candidate: GenerationCandidate) -> [String] {
        var failures: [String] = []
        for binding in candidate.bindings.prefix(candidate.committedCount).reversed() {
            do { try binding.undo() } catch {
                log(.error, candidate.manifest.id, "could not take back generation \(candidate.generation)'s commit: \(error)")
                failures.append("\(error)")
            }
        }
        candidate.committedCount = 0
        return failures
    }

    /// The generation serves: each binding drops what an undo would have needed.
    func finish(_ candidate: GenerationCandidate) {
        for binding in candidate.bindings { binding.committed() }
    }

    /// Once the slot points at the generation: its bindings' registrations (routes to the new
    /// instance, made while a swap still holds calls).
    func activate(_ candidate: GenerationCandidate, in slot: PluginSlot, replacing: Bool) async {
        guard let context = candidate.context else { return }
        for binding in candidate.bindings { await binding.activate(Activation(slot: slot, context: context, replacing: replacing)) }
    }

    /// Schedules the first run of each job the manifest declares that has no timer yet (a job a
    /// new build adds). A durable write, so a swap does it after admission reopens: a job's first
    /// run is a period away, and held calls need not wait for the disk.
    func seedJobs(_ candidate: GenerationCandidate) {
        for job in candidate.manifest.jobs {
            do {
                _ = try timerStore.putIfAbsent(StoredTimer(plugin: candidate.manifest.id, key: "job:\(job.name)", name: job.name,
                                                           fireAt: clock.now().addingTimeInterval(TimeInterval(job.everySeconds)),
                                                           everySeconds: job.everySeconds))
            } catch {
                // Nothing retries it before the next start or swap: the job would never run, unsaid.
                log(.error, candidate.manifest.id, "job '\(job.name)' could not be scheduled, so it will not run until the plugin starts again: \(error)")
            }
        }
    }

    /// Stops an instance that will not serve (a failed or rolled-back candidate).
    func abandon(_ candidate: GenerationCandidate) async {
        await onSharedPool { await candidate.instance?.stop() }
        candidate.context?.removeAllHandlers()
    }
}
