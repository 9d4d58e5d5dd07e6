-- skip trace store, schema version 3 (PRAGMA user_version = 3).
--
-- Table and column names follow the Nsight Systems SQLite export where one exists, so SQL
-- written for nsys exports runs here too: runtime and driver API calls share
-- CUPTI_ACTIVITY_KIND_RUNTIME (eventClass 0 runtime, 1 driver), TARGET_INFO_GPU has one row
-- per GPU, and the ENUM_* tables, META_DATA_EXPORT and TARGET_INFO_SESSION_START_TIME that
-- nsys's stats reports read are here. Every event table carries runId (SKIP_RUNS). Times
-- are integer nanoseconds on CLOCK_MONOTONIC_RAW of the recording host (see
-- SKIP_CLOCK_ANCHORS). Name columns hold StringIds ids. globalTid packs the process and
-- thread as nsys does: (pid << 24) | (tid & 0xFFFFFF); globalPid is the same with the thread
-- bits zero. Every table and column is described in docs/trace-format.md.
--
-- This file is embedded in the skip binaries at build time; indexes are created after the
-- bulk load by skip_store_finalize(), not here. Every statement can run again on a file that
-- has the tables (IF NOT EXISTS, OR IGNORE): the migration from version 1 (common/store.c)
-- runs it to add what version 2 has. Columns added in version 2 come last in their tables, so
-- a migrated file and a new one have the same column order.

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

-- nsys's enumerations, as the stats reports join them (values and names from the Nsight
-- Systems Analysis Guide, "SQLite Schema Event Values"; docs/trace-format.md).
CREATE TABLE IF NOT EXISTS ENUM_CUDA_MEMCPY_OPER (
	id INTEGER NOT NULL PRIMARY KEY,
	name TEXT,
	label TEXT
);
INSERT OR IGNORE INTO ENUM_CUDA_MEMCPY_OPER VALUES
	(0, 'CUDA_MEMCPY_KIND_UNKNOWN', 'Unknown'),
	(1, 'CUDA_MEMCPY_KIND_HTOD', 'Host-to-Device'),
	(2, 'CUDA_MEMCPY_KIND_DTOH', 'Device-to-Host'),
	(3, 'CUDA_MEMCPY_KIND_HTOA', 'Host-to-Array'),
	(4, 'CUDA_MEMCPY_KIND_ATOH', 'Array-to-Host'),
	(5, 'CUDA_MEMCPY_KIND_ATOA', 'Array-to-Array'),
	(6, 'CUDA_MEMCPY_KIND_ATOD', 'Array-to-Device'),
	(7, 'CUDA_MEMCPY_KIND_DTOA', 'Device-to-Array'),
	(8, 'CUDA_MEMCPY_KIND_DTOD', 'Device-to-Device'),
	(9, 'CUDA_MEMCPY_KIND_HTOH', 'Host-to-Host'),
	(10, 'CUDA_MEMCPY_KIND_PTOP', 'Peer-to-Peer'),
	(11, 'CUDA_MEMCPY_KIND_UVM_HTOD', 'Unified Host-to-Device'),
	(12, 'CUDA_MEMCPY_KIND_UVM_DTOH', 'Unified Device-to-Host'),
	(13, 'CUDA_MEMCPY_KIND_UVM_DTOD', 'Unified Device-to-Device');

CREATE TABLE IF NOT EXISTS ENUM_CUDA_MEM_KIND (
	id INTEGER NOT NULL PRIMARY KEY,
	name TEXT,
	label TEXT
);
INSERT OR IGNORE INTO ENUM_CUDA_MEM_KIND VALUES
	(0, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE', 'Pageable'),
	(1, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'),
	(2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device'),
	(3, 'CUDA_MEMOPR_MEMORY_KIND_ARRAY', 'Array'),
	(4, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED', 'Managed'),
	(5, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC', 'Device Static'),
	(6, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC', 'Managed Static'),
	(7, 'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN', 'Unknown');

CREATE TABLE IF NOT EXISTS ENUM_CUPTI_SYNC_TYPE (
	id INTEGER NOT NULL PRIMARY KEY,
	name TEXT,
	label TEXT
);
INSERT OR IGNORE INTO ENUM_CUPTI_SYNC_TYPE VALUES
	(0, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN', 'Unknown'),
	(1, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE', 'Event sync'),
	(2, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT', 'Stream wait sync'),
	(3, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE', 'Stream sync'),
	(4, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE', 'Context sync');

CREATE TABLE IF NOT EXISTS ENUM_NSYS_EVENT_TYPE (
	id INTEGER NOT NULL PRIMARY KEY,
	name TEXT,
	label TEXT
);
INSERT OR IGNORE INTO ENUM_NSYS_EVENT_TYPE VALUES
	(33, 'NvtxCategory', 'NvtxCategory'),
	(34, 'NvtxMark', 'NvtxMark'),
	(39, 'NvtxThread', 'NvtxThread'),
	(59, 'NvtxPushPopRange', 'NvtxPushPopRange'),
	(60, 'NvtxStartEndRange', 'NvtxStartEndRange'),
	(75, 'NvtxDomainCreate', 'NvtxDomainCreate'),
	(76, 'NvtxDomainDestroy', 'NvtxDomainDestroy');

CREATE TABLE IF NOT EXISTS ENUM_NSYS_EVENT_CLASS (
	id INTEGER NOT NULL PRIMARY KEY,
	name TEXT,
	label TEXT
);
INSERT OR IGNORE INTO ENUM_NSYS_EVENT_CLASS VALUES
	(0, 'TRACE_PROCESS_EVENT_CUDA_RUNTIME', 'CUDA runtime'),
	(1, 'TRACE_PROCESS_EVENT_CUDA_DRIVER', 'CUDA driver');

-- What wrote the file. EXPORT_SCHEMA_VERSION names the nsys export schema whose tables and
-- columns the nsys-named tables here were checked against; EXPORT_PRODUCT_VERSION (skip and
-- its version) is written by skip_store_create().
CREATE TABLE IF NOT EXISTS META_DATA_EXPORT (
	name TEXT NOT NULL PRIMARY KEY,
	value TEXT
);
INSERT OR REPLACE INTO META_DATA_EXPORT VALUES
	('EXPORT_SCHEMA_VERSION', '3.16.1'),
	('SKIP_SCHEMA_VERSION', '2');

-- When the recording started: the earliest SKIP_RUNS.startUtcNs, kept by the triggers at the
-- end of this file. localTime is NULL: the recording host's time zone is not recorded.
CREATE TABLE IF NOT EXISTS TARGET_INFO_SESSION_START_TIME (
	utcEpochNs INTEGER,
	utcTime TEXT,
	localTime TEXT
);

-- One row per GPU, as nsys has it (one per device id; vmId is always 0). Filled by the trigger
-- on SKIP_GPUS from the first process that saw the device; what each process saw, run by run,
-- is in SKIP_GPUS.
CREATE TABLE IF NOT EXISTS TARGET_INFO_GPU (
	vmId INTEGER NOT NULL DEFAULT 0,
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
	asyncEngines INTEGER,
	UNIQUE (vmId, id)
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
	completed INTEGER,
	greenContextId INTEGER
);

-- CUDA runtime and driver API calls, together as nsys stores them: eventClass 0 runtime, 1
-- driver (ENUM_NSYS_EVENT_CLASS). callchainId is nsys's backtrace reference: always NULL.
CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_RUNTIME (
	runId INTEGER NOT NULL,
	start INTEGER NOT NULL,
	end INTEGER NOT NULL,
	eventClass INTEGER NOT NULL,
	globalTid INTEGER NOT NULL,
	correlationId INTEGER NOT NULL,
	nameId INTEGER NOT NULL,
	returnValue INTEGER NOT NULL,
	cbid INTEGER NOT NULL,
	callchainId INTEGER
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
	graphId INTEGER,
	greenContextId INTEGER
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
	graphId INTEGER,
	greenContextId INTEGER
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
	eventSyncId INTEGER,
	greenContextId INTEGER
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

-- The GPUs each process saw, run by run (skip record's collector writes one row per device
-- and process); TARGET_INFO_GPU above is the one-row-per-GPU view nsys SQL joins on.
CREATE TABLE IF NOT EXISTS SKIP_GPUS (
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

CREATE TRIGGER IF NOT EXISTS SKIP_GPUS_target AFTER INSERT ON SKIP_GPUS BEGIN
	INSERT OR IGNORE INTO TARGET_INFO_GPU(vmId, id, name, uuid, totalMemory, memoryBandwidth,
		l2CacheSize, clockRate, smCount, computeMajor, computeMinor, maxThreadsPerBlock,
		maxBlocksPerSm, maxWarpsPerSm, maxRegistersPerBlock, maxRegistersPerSm,
		maxShmemPerBlock, maxShmemPerSm, threadsPerWarp, asyncEngines)
	VALUES (0, NEW.id, NEW.name, NEW.uuid, NEW.totalMemory, NEW.memoryBandwidth,
		NEW.l2CacheSize, NEW.clockRate, NEW.smCount, NEW.computeMajor, NEW.computeMinor,
		NEW.maxThreadsPerBlock, NEW.maxBlocksPerSm, NEW.maxWarpsPerSm,
		NEW.maxRegistersPerBlock, NEW.maxRegistersPerSm, NEW.maxShmemPerBlock,
		NEW.maxShmemPerSm, NEW.threadsPerWarp, NEW.asyncEngineCount);
END;

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
	pid INTEGER,
	kind TEXT NOT NULL DEFAULT 'full' -- 'full', or 'baseline' (skip record --baseline: NVTX only)
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

-- TARGET_INFO_SESSION_START_TIME follows SKIP_RUNS.
CREATE TRIGGER IF NOT EXISTS SKIP_RUNS_session_insert AFTER INSERT ON SKIP_RUNS BEGIN
	DELETE FROM TARGET_INFO_SESSION_START_TIME;
	INSERT INTO TARGET_INFO_SESSION_START_TIME(utcEpochNs, utcTime, localTime)
		SELECT m, strftime('%Y-%m-%dT%H:%M:%fZ', m / 1000000000.0, 'unixepoch'), NULL
		FROM (SELECT min(startUtcNs) AS m FROM SKIP_RUNS) WHERE m IS NOT NULL;
END;

CREATE TRIGGER IF NOT EXISTS SKIP_RUNS_session_update AFTER UPDATE OF startUtcNs ON SKIP_RUNS
BEGIN
	DELETE FROM TARGET_INFO_SESSION_START_TIME;
	INSERT INTO TARGET_INFO_SESSION_START_TIME(utcEpochNs, utcTime, localTime)
		SELECT m, strftime('%Y-%m-%dT%H:%M:%fZ', m / 1000000000.0, 'unixepoch'), NULL
		FROM (SELECT min(startUtcNs) AS m FROM SKIP_RUNS) WHERE m IS NOT NULL;
END;
