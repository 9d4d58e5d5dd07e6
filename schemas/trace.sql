-- skip trace store, schema version 1 (PRAGMA user_version = 1).
--
-- Table and column names follow the Nsight Systems SQLite export where one exists, so SQL
-- written for nsys exports runs here too. Every event table carries runId (SKIP_RUNS). Times
-- are integer nanoseconds on CLOCK_MONOTONIC_RAW of the recording host (see
-- SKIP_CLOCK_ANCHORS). Name columns hold StringIds ids. globalTid packs the process and
-- thread as nsys does: (pid << 24) | (tid & 0xFFFFFF); globalPid is the same with the thread
-- bits zero. Every table and column is described in docs/trace-format.md.
--
-- This file is embedded in the skip binaries at build time; indexes are created after the
-- bulk load by skip_store_finalize(), not here.

CREATE TABLE IF NOT EXISTS StringIds (
	id INTEGER PRIMARY KEY,
	value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS ThreadNames (
	runId INTEGER NOT NULL,
	globalTid INTEGER NOT NULL,
	nameId INTEGER NOT NULL,
	priority INTEGER
);

CREATE TABLE IF NOT EXISTS TARGET_INFO_GPU (
	runId INTEGER NOT NULL,
	globalPid INTEGER NOT NULL,
	id INTEGER NOT NULL,
	name TEXT,
	uuid TEXT,
	totalMemory INTEGER,
	memoryBandwidth INTEGER,
	l2CacheSize INTEGER,
	clockRate INTEGER,
	smCount INTEGER,
	computeMajor INTEGER,
	computeMinor INTEGER,
	maxThreadsPerBlock INTEGER,
	maxBlocksPerSm INTEGER,
	maxWarpsPerSm INTEGER,
	maxRegistersPerBlock INTEGER,
	maxRegistersPerSm INTEGER,
	maxShmemPerBlock INTEGER,
	maxShmemPerSm INTEGER,
	threadsPerWarp INTEGER,
	asyncEngineCount INTEGER,
	isMigEnabled INTEGER
);

CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_KERNEL (
	runId INTEGER NOT NULL,
	start INTEGER NOT NULL,
	end INTEGER NOT NULL,
	deviceId INTEGER NOT NULL,
	contextId INTEGER NOT NULL,
	streamId INTEGER NOT NULL,
	correlationId INTEGER NOT NULL,
	globalPid INTEGER NOT NULL,
	demangledName INTEGER NOT NULL,
	shortName INTEGER NOT NULL,
	mangledName INTEGER,
	launchType INTEGER,
	cacheConfig INTEGER,
	registersPerThread INTEGER NOT NULL,
	gridX INTEGER NOT NULL,
	gridY INTEGER NOT NULL,
	gridZ INTEGER NOT NULL,
	blockX INTEGER NOT NULL,
	blockY INTEGER NOT NULL,
	blockZ INTEGER NOT NULL,
	staticSharedMemory INTEGER NOT NULL,
	dynamicSharedMemory INTEGER NOT NULL,
	localMemoryPerThread INTEGER,
	localMemoryTotal INTEGER,
	gridId INTEGER,
	sharedMemoryExecuted INTEGER,
	graphNodeId INTEGER,
	graphId INTEGER,
	sharedMemoryLimitConfig INTEGER,
	clusterX INTEGER,
	clusterY INTEGER,
	clusterZ INTEGER,
	isDeviceLaunched INTEGER,
	queued INTEGER,
	submitted INTEGER,
	completed INTEGER
);

-- CUDA runtime and driver API calls (nsys: eventClass 0 = runtime, 1 = driver).
CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_RUNTIME (
	runId INTEGER NOT NULL,
	start INTEGER NOT NULL,
	end INTEGER NOT NULL,
	eventClass INTEGER NOT NULL,
	globalTid INTEGER NOT NULL,
	correlationId INTEGER NOT NULL,
	nameId INTEGER NOT NULL,
	returnValue INTEGER NOT NULL,
	cbid INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_DRIVER (
	runId INTEGER NOT NULL,
	start INTEGER NOT NULL,
	end INTEGER NOT NULL,
	eventClass INTEGER NOT NULL,
	globalTid INTEGER NOT NULL,
	correlationId INTEGER NOT NULL,
	nameId INTEGER NOT NULL,
	returnValue INTEGER NOT NULL,
	cbid INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_MEMCPY (
	runId INTEGER NOT NULL,
	start INTEGER NOT NULL,
	end INTEGER NOT NULL,
	deviceId INTEGER NOT NULL,
	contextId INTEGER NOT NULL,
	streamId INTEGER NOT NULL,
	correlationId INTEGER NOT NULL,
	globalPid INTEGER NOT NULL,
	bytes INTEGER NOT NULL,
	copyKind INTEGER NOT NULL,
	srcKind INTEGER,
	dstKind INTEGER,
	flags INTEGER,
	graphNodeId INTEGER,
	graphId INTEGER
);

CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_MEMSET (
	runId INTEGER NOT NULL,
	start INTEGER NOT NULL,
	end INTEGER NOT NULL,
	deviceId INTEGER NOT NULL,
	contextId INTEGER NOT NULL,
	streamId INTEGER NOT NULL,
	correlationId INTEGER NOT NULL,
	globalPid INTEGER NOT NULL,
	value INTEGER NOT NULL,
	bytes INTEGER NOT NULL,
	memKind INTEGER,
	flags INTEGER,
	graphNodeId INTEGER,
	graphId INTEGER
);

CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (
	runId INTEGER NOT NULL,
	start INTEGER NOT NULL,
	end INTEGER NOT NULL,
	deviceId INTEGER,
	contextId INTEGER NOT NULL,
	streamId INTEGER NOT NULL,
	correlationId INTEGER NOT NULL,
	globalPid INTEGER NOT NULL,
	syncType INTEGER NOT NULL,
	eventId INTEGER,
	eventSyncId INTEGER
);

-- Graph-level trace (skip record --trace=graph-level): one row per graph launch.
CREATE TABLE IF NOT EXISTS CUDA_GRAPH_TRACE (
	runId INTEGER NOT NULL,
	start INTEGER NOT NULL,
	end INTEGER NOT NULL,
	deviceId INTEGER NOT NULL,
	contextId INTEGER NOT NULL,
	streamId INTEGER NOT NULL,
	correlationId INTEGER NOT NULL,
	globalPid INTEGER NOT NULL,
	graphId INTEGER NOT NULL
);

-- NVTX: eventType 34 mark, 59 push/pop range, 60 start/end range, 75 domain create.
CREATE TABLE IF NOT EXISTS NVTX_EVENTS (
	runId INTEGER NOT NULL,
	start INTEGER NOT NULL,
	end INTEGER,
	eventType INTEGER NOT NULL,
	rangeId INTEGER,
	category INTEGER,
	color INTEGER,
	text TEXT,
	globalTid INTEGER NOT NULL,
	endGlobalTid INTEGER,
	textId INTEGER,
	domainId INTEGER NOT NULL DEFAULT 0,
	uint64Value INTEGER,
	int64Value INTEGER,
	doubleValue REAL,
	uint32Value INTEGER,
	int32Value INTEGER,
	floatValue REAL
);

-- CUPTI's account of its own overhead (CUPTI_ACTIVITY_KIND_OVERHEAD).
CREATE TABLE IF NOT EXISTS PROFILER_OVERHEAD (
	runId INTEGER NOT NULL,
	start INTEGER NOT NULL,
	end INTEGER NOT NULL,
	globalTid INTEGER NOT NULL,
	correlationId INTEGER,
	nameId INTEGER NOT NULL,
	overheadKind INTEGER NOT NULL,
	objectKind INTEGER NOT NULL
);

-- skip's own tables.

CREATE TABLE IF NOT EXISTS SKIP_RUNS (
	runId INTEGER PRIMARY KEY,
	label TEXT,
	commandLine TEXT NOT NULL,
	parameters TEXT NOT NULL DEFAULT '{}',
	repetition INTEGER NOT NULL DEFAULT 0,
	exitCode INTEGER,
	exitSignal INTEGER,
	status TEXT NOT NULL DEFAULT 'running',
	startUtcNs INTEGER,
	endUtcNs INTEGER,
	start INTEGER,
	end INTEGER,
	hostname TEXT,
	pid INTEGER
);

CREATE TABLE IF NOT EXISTS SKIP_PARAMETERS (
	runId INTEGER NOT NULL,
	name TEXT NOT NULL,
	value TEXT NOT NULL,
	numericValue REAL,
	PRIMARY KEY (runId, name)
);

CREATE TABLE IF NOT EXISTS SKIP_METADATA (
	runId INTEGER NOT NULL,
	globalPid INTEGER NOT NULL DEFAULT 0,
	key TEXT NOT NULL,
	value TEXT,
	PRIMARY KEY (runId, globalPid, key)
);

CREATE TABLE IF NOT EXISTS SKIP_DROPS (
	runId INTEGER NOT NULL,
	globalPid INTEGER NOT NULL,
	kind TEXT NOT NULL,
	cause TEXT NOT NULL,
	count INTEGER NOT NULL,
	PRIMARY KEY (runId, globalPid, kind, cause)
);

CREATE TABLE IF NOT EXISTS SKIP_CLOCK_ANCHORS (
	runId INTEGER NOT NULL,
	globalPid INTEGER NOT NULL,
	what TEXT NOT NULL,
	traceNs INTEGER NOT NULL,
	realtimeNs INTEGER NOT NULL,
	monotonicNs INTEGER NOT NULL,
	monotonicRawNs INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS SKIP_PROCESSES (
	runId INTEGER NOT NULL,
	globalPid INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	parentPid INTEGER,
	name TEXT,
	commandLine TEXT,
	start INTEGER,
	end INTEGER,
	PRIMARY KEY (runId, globalPid)
);
