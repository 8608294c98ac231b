<?php
/*
 * The fault campaign: servers, workload, nemesis (issue 23). Run through
 * tests/nemesis/run.sh (CI), tests/nemesis/soak or bench/nemesis/run:
 *
 *   php campaign.php --lib=distlock|laravel|symfony|malkusch --out=DIR [--seed=N]
 *       [--seconds=S] [--phases=single,sentinel,sentinel-minrep,cluster,redlock]
 *       [--workers=8] [--lanes=1] --redis-server=BIN --redis-cli=BIN [--fake-server=BIN --fake-lib=SO]
 *       [--ext=distlock.so] [--primitives=mutex,rw,semaphore,multi] [--faults=TYPE,...|-] [--break=PRIM,...]
 *
 * The workload (worker.php) draws, cycle by cycle, one of the primitives the
 * library has: the mutex, shared/exclusive leases (rw), a semaphore, a
 * multi-lock; every phase runs all of them (a Redlock phase the mutex only:
 * distlock refuses the others there), each on its own names (one name, one
 * kind), but the multi-lock, whose names overlap the mutex's (one kind). So
 * every fault meets every primitive without a phase more; the faults aimed at
 * a holder or a waiter (client-pause, client-kill-*) take one of each kind.
 *
 * --seconds=0 (the CI run): every phase once, each fault type of the phase
 * once, in an order drawn from the seed. --seconds=S: rounds of every phase,
 * each with a random number of its faults drawn with repetition, until S
 * seconds have passed. Faults run one at a time on a topology, each followed
 * by a quiet tail of one lease + 1.5 s, so that the checker can tie every
 * anomaly to the fault in whose window it began.
 *
 * --lanes=N: the phases are split into N lanes (by their expected length) that
 * run side by side, each in its own forked process, each lane's phases one
 * after another. Lanes share nothing but the CPU and the resource server
 * (never faulted): each has its own servers, proxy and workers, and every
 * fault touches only its own lane's, so a fault's window still holds only its
 * own effects (the checker works per phase). The CI run uses 2 lanes.
 *
 * Everything goes to DIR: nemesis.jsonl (the seed, the schedule, each phase and
 * each fault's start and end, the key scans), history-<worker>.jsonl (one per
 * worker process), the servers' logs. check.php reads them.
 */
declare(strict_types=1);

namespace Nemesis;

require __DIR__ . '/lib/Servers.php';
require __DIR__ . '/lib/Libs.php';

$o = getopt('', ['lib:', 'out:', 'seed:', 'seconds:', 'phases:', 'workers:', 'lanes:', 'redis-server:', 'redis-cli:',
    'fake-server:', 'fake-lib:', 'ext:', 'primitives:', 'faults:', 'break:']);
$LIB = $o['lib'] ?? 'distlock';
$OUT = $o['out'] ?? exit("--out=DIR is required\n");
$SEED = isset($o['seed']) ? (int) $o['seed'] : random_int(1, 999999);
$SECONDS = (int) ($o['seconds'] ?? 0);
$PHASES = explode(',', $o['phases'] ?? ($LIB === 'distlock' ? 'single,sentinel,sentinel-minrep,cluster,redlock' : 'single'));
$WORKERS = (int) ($o['workers'] ?? 8);
$LANES = max(1, (int) ($o['lanes'] ?? 1));
$BIN = $o['redis-server'] ?? 'redis-server';
$CLI = $o['redis-cli'] ?? 'redis-cli';
$FAKE_BIN = $o['fake-server'] ?? null;
$FAKE_LIB = $o['fake-lib'] ?? null;
$EXT = $o['ext'] ?? null;
// the primitives the workload draws from (those the library has; Redlock phases: the mutex only)
$P0 = lib_params($LIB);
$PRIMS = array_values(array_intersect(isset($o['primitives']) ? explode(',', $o['primitives']) : array_keys(PRIMITIVES),
    $P0['primitives']));
// --faults=LIST: only these fault types ('-': none; a short run, e.g. the broken workloads' proof);
// --break=rw,semaphore,multi: deliberately broken primitives in the workload (worker.php: a writer
// that takes a shared lease; permits asked of the limit + 1; a multi-lock that leaves its last name
// out but says it holds it), which the checker must catch
$ONLY = isset($o['faults']) ? explode(',', $o['faults']) : null;
$BREAK = $o['break'] ?? '';
@mkdir($OUT, 0777, true);
mt_srand($SEED);
$P = lib_params($LIB);
$LEASE = $P['lease'];
$TAIL = $LEASE + 1.5;

/** Fault types per phase, and whether the documentation allows overlapping holders under them. */
const FAULTS = [
    'single' => ['client-pause', 'client-kill-holding', 'client-kill-waiting', 'server-pause', 'proxy-delay', 'proxy-stall',
                 'proxy-reset', 'restart-aof', 'clock-jump', 'restart-volatile'],
    'sentinel' => ['sentinel-failover'],
    'sentinel-minrep' => ['sentinel-failover-minrep'],
    'cluster' => ['cluster-failover'],
    'redlock' => ['redlock-stop-minority', 'redlock-stop-majority', 'redlock-restart-minority', 'redlock-restart-majority'],
];
// Faults that end the phase's usefulness go last in a round: a restart without
// persistence resets the fencing counter (the resource then refuses the new,
// smaller tokens: safe, but nothing more is written), a failover kills the master.
const LAST = ['restart-volatile', 'redlock-restart-majority'];

$nem = fopen("$OUT/nemesis.jsonl", 'a');    // O_APPEND: lines of several lanes never interleave
$ev = function (array $e) use (&$nem): void {
    fwrite($nem, json_encode(['t' => hrtime(true)] + $e, JSON_UNESCAPED_SLASHES) . "\n");
};

// ---- the schedule, all of it drawn from the seed up front -------------------
$rand = fn (float $lo, float $hi): float => $lo + (mt_rand() / mt_getrandmax()) * ($hi - $lo);
$duration = function (string $type) use ($rand, $LEASE): array {
    return match ($type) {
        'client-pause' => ['seconds' => round($LEASE + $rand(1.0, 2.0), 2)],   // longer than the lease
        'server-pause' => ['seconds' => round($rand(0.8, 2.5), 2)],
        'proxy-delay' => ['seconds' => round($rand(1.5, 3.0), 2), 'delay_ms' => mt_rand(50, 300)],
        'proxy-stall' => ['seconds' => round($rand(0.8, 2.0), 2)],
        'proxy-reset' => ['seconds' => round($rand(0.3, 1.2), 2)],      // new connections reset this long
        'clock-jump' => ['jump_s' => (int) ceil($LEASE * $rand(3, 10))],
        'redlock-stop-minority', 'redlock-stop-majority' => ['seconds' => round($rand(1.0, 2.5), 2)],
        // down for longer than one lease: the delayed restart Redlock requires of a master without persistence
        'redlock-restart-minority' => ['seconds' => round($LEASE + $rand(0.3, 1.0), 2)],
        default => [],
    };
};
$plan = function (string $phase, bool $once) use ($duration, $ONLY): array {
    $types = FAULTS[$phase];
    if ($ONLY !== null) {
        $types = array_values(array_intersect($types, $ONLY));
    }
    if (!$once && $types !== []) {
        $k = mt_rand(1, count($types) + 1);
        $pick = [];
        for ($i = 0; $i < $k; $i++) {
            $pick[] = $types[mt_rand(0, count($types) - 1)];
        }
        $types = $pick;
    }
    // a seeded shuffle, with the phase-ending faults last (at most one of each)
    $head = array_values(array_filter($types, fn ($t) => !in_array($t, LAST, true)));
    for ($i = count($head) - 1; $i > 0; $i--) {
        $j = mt_rand(0, $i);
        [$head[$i], $head[$j]] = [$head[$j], $head[$i]];
    }
    $last = array_values(array_unique(array_filter($types, fn ($t) => in_array($t, LAST, true))));
    $faults = [];
    foreach (array_merge($head, $last) as $t) {
        $faults[] = ['type' => $t, 'gap' => round(0.3 + mt_rand(0, 1200) / 1000, 2)] + $duration($t);
    }
    return $faults;
};
$schedule = [];
if ($SECONDS <= 0) {
    foreach ($PHASES as $ph) {
        $schedule[] = ['phase' => $ph, 'faults' => $plan($ph, true)];
    }
} else {
    // rounds of every phase, enough for the time asked (cut when it has run out)
    for ($r = 0; $r < 1000; $r++) {
        foreach ($PHASES as $ph) {
            $schedule[] = ['phase' => $ph, 'faults' => $plan($ph, false)];
        }
    }
}
// ---- lanes: the phases split by their expected length (longest first, each to
// the lane with the least so far), without drawing from the seed --------------
$expected = function (string $phase) use ($LEASE, $TAIL): float {
    // seconds measured on 2 cores: servers up, warm-up, stop and drain; then each fault with its gap and tail
    $t = match ($phase) { 'sentinel', 'sentinel-minrep' => 1.5, 'cluster' => 2.5, default => 0.5 } + 1.5 + 1.5;
    foreach (FAULTS[$phase] as $type) {
        $t += 0.9 + $TAIL + match ($type) {
            'client-pause' => $LEASE + 1.5, 'server-pause' => 1.65, 'proxy-delay' => 2.25, 'proxy-stall' => 1.4,
            'proxy-reset' => 0.75, 'redlock-stop-minority', 'redlock-stop-majority' => 1.75,
            'redlock-restart-minority' => $LEASE + 0.65, 'sentinel-failover', 'sentinel-failover-minrep' => 4.5,
            'cluster-failover' => 4.5, default => 0.3,
        };
    }
    return $t;
};
$byLength = $PHASES;
usort($byLength, fn ($a, $b) => $expected($b) <=> $expected($a));
$lanes = array_fill(0, min($LANES, count($PHASES)), []);
$laneLoad = array_fill(0, count($lanes), 0.0);
foreach ($byLength as $ph) {
    $k = array_keys($laneLoad, min($laneLoad))[0];
    $lanes[$k][] = $ph;
    $laneLoad[$k] += $expected($ph);
}

$load = sys_getloadavg()[0] ?? 0.0;
$ncpu = (int) trim((string) @shell_exec('nproc')) ?: 1;
$ev(['op' => 'run', 'lib' => $LIB, 'seed' => $SEED, 'primitives' => $PRIMS, 'break' => $BREAK, 'seconds' => $SECONDS, 'workers' => $WORKERS, 'lease' => $LEASE,
     'wait' => is_finite($P['wait']) ? $P['wait'] : null, 'timeout' => $P['timeout'], 'fenced' => $P['fenced'], 'tail' => $TAIL,
     'lanes' => $lanes, 'load' => $load, 'ncpu' => $ncpu, 'php' => PHP_VERSION, 'server' => trim((string) @shell_exec(escapeshellarg($BIN) . ' --version')),
     'fake_server' => $FAKE_BIN ? trim((string) @shell_exec(escapeshellarg($FAKE_BIN) . ' --version')) : null]);
$ev(['op' => 'schedule', 'seed' => $SEED, 'phases' => $SECONDS > 0 ? array_slice($schedule, 0, 3 * count($PHASES)) : $schedule,
     'note' => $SECONDS > 0 ? 'the first rounds shown; the run goes on drawing from the same seed' : 'every fault type once']);
log_line("lib $LIB (" . implode(', ', $PRIMS) . ($BREAK !== '' ? "; broken: $BREAK" : '') . "), seed $SEED, " . ($SECONDS > 0 ? "$SECONDS s" : 'every fault once') . ", $WORKERS workers, lease $LEASE s, load $load on $ncpu cpus"
    . (count($lanes) > 1 ? ', lanes side by side: ' . implode(' | ', array_map(fn ($l) => implode(' ', $l), $lanes)) : ''));

// ---- the resource server (never faulted) ------------------------------------
$resource = new Server('resource', $BIN, "$OUT/resource", ['--save', '', '--appendonly', 'no']);
$resource->start();

$t0 = microtime(true);
$deadline = $SECONDS > 0 ? $t0 + $SECONDS : INF;
$phaseNo = 0;
$TOPO = null;
$workers = [];     // id => ['proc' => , 'pid' => ]
$nextWorker = 0;
$cfgFile = '';

$startWorker = function () use (&$workers, &$nextWorker, &$phaseNo, &$cfgFile, $EXT, $OUT, $ev): string {
    $id = "$phaseNo." . (++$nextWorker);
    $cmd = [PHP_BINARY];
    if ($EXT !== null) {
        array_push($cmd, '-d', "extension=$EXT");
    }
    array_push($cmd, __DIR__ . '/worker.php', $cfgFile, $id);
    $proc = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['file', "$OUT/worker-$id.log", 'a'], 2 => ['file', "$OUT/worker-$id.log", 'a']], $pipes);
    $pid = proc_get_status($proc)['pid'];
    $workers[$id] = ['proc' => $proc, 'pid' => $pid];
    $ev(['op' => 'worker', 'id' => $id, 'pid' => $pid]);
    return $id;
};

$stateOf = function (string $id) use ($OUT): string {
    return (string) @file_get_contents("$OUT/state-$id");
};

/**
 * One worker per primitive in state $prefix ('H': holding, 'W': waiting), distinct workers, as
 * primitive => worker id, all read in one pass over the state files (so that each is still in
 * that state when the fault hits it, a few ms later): the first pass that finds every primitive
 * of the phase, else, as time goes on (0.5 s a step), one primitive fewer; [] after 3 s.
 */
$pickEach = function (string $prefix) use (&$workers, $stateOf, &$phasePrims): array {
    $t0 = microtime(true);
    while (($el = microtime(true) - $t0) < 3) {
        $found = [];
        $ids = array_keys($workers);
        $start = mt_rand(0, count($ids) - 1);
        for ($i = 0; $i < count($ids); $i++) {
            $id = $ids[($start + $i) % count($ids)];
            $st = explode(' ', $stateOf($id));
            if ($st[0] === $prefix) {
                $found[PRIM_OF[$st[1] ?? ''] ?? 'mutex'] ??= $id;
            }
        }
        if ($found !== [] && count($found) >= count($phasePrims) - (int) floor($el / 0.5)) {
            return array_intersect_key(array_replace(PRIMITIVES, $found), $found);    // in PRIMITIVES' order
        }
        usleep(2000);
    }
    return [];
};

/** A worker that holds a lease now (or, with $holding false, one that does not), waiting up to 5 s for one. */
$pickWorker = function (bool $holding) use (&$workers, $stateOf): ?string {
    $end = microtime(true) + 5;
    while (microtime(true) < $end) {
        $ids = array_keys($workers);
        $start = mt_rand(0, count($ids) - 1);
        for ($i = 0; $i < count($ids); $i++) {
            $id = $ids[($start + $i) % count($ids)];
            if (str_starts_with($stateOf($id), 'H') === $holding) {
                return $id;
            }
        }
        usleep(2000);
    }
    return null;
};

/** The lock keys on the lock servers (masters only), but the fencing counters (a slot's "distlock:fence{T}", or a
 * name's ":fence" of earlier releases: meant to last): [server, key, pttl]. */
$lockKeys = function () use (&$TOPO): array {
    $found = [];
    foreach ($TOPO->lockServers() as $s) {
        try {
            $r = $s->redis(1.0);
            if ($TOPO->kind === 'cluster' || $TOPO->kind === 'sentinel') {
                if (($r->info('replication')['role'] ?? '') !== 'master') {
                    continue;   // a replica's keys are its master's
                }
            }
            $it = null;
            $r->setOption(\Redis::OPT_SCAN, \Redis::SCAN_RETRY);
            while (($keys = $r->scan($it, '*', 1000)) !== false) {
                foreach ($keys as $k) {
                    if (!str_ends_with($k, ':fence') && !preg_match('/distlock:fence(\{[0-9A-Za-z]{3}\})?$/', $k)) {
                        $found[] = [$s, $k, (int) $r->pttl($k)];
                    }
                }
            }
        } catch (\Throwable) {
            // a server down under a fault is scanned next time
        }
    }
    return $found;
};

/** Scans the lock servers: keys without a TTL; at the end ($final), every key still there. */
$scanKeys = function (bool $final) use ($lockKeys, $ev, &$phaseNo): void {
    foreach ($lockKeys() as [$s, $k, $pttl]) {
        if ($final) {
            if ($pttl !== -2) {
                $ev(['op' => 'leftover', 'phase' => $phaseNo, 'key' => $k, 'pttl' => $pttl, 'port' => $s->port]);
            }
        } elseif ($pttl === -1) {
            $ev(['op' => 'nottl', 'phase' => $phaseNo, 'key' => $k, 'port' => $s->port]);
        }
    }
};

/** Sleeps $seconds while scanning for keys without TTL every 0.5 s. */
$idle = function (float $seconds) use ($scanKeys): void {
    $end = microtime(true) + $seconds;
    while (($left = $end - microtime(true)) > 0) {
        usleep((int) (min(0.5, $left) * 1e6));
        $scanKeys(false);
    }
};

$MAIN = getmypid();
$lanePids = [];    // main process: lane => pid of its forked process
$cleanup = function () use (&$workers, &$TOPO, $resource, $MAIN, &$lanePids): void {
    foreach ($workers as $w) {
        @posix_kill($w['pid'], SIGCONT);
        @posix_kill($w['pid'], SIGKILL);
        @proc_close($w['proc']);
    }
    $workers = [];
    $TOPO?->stop();
    $TOPO = null;
    if (getmypid() === $MAIN) {
        foreach ($lanePids as $pid) {    // each lane stops its own workers and servers
            @posix_kill($pid, SIGTERM);
        }
        foreach ($lanePids as $pid) {
            pcntl_waitpid($pid, $st);
        }
        $lanePids = [];
        $resource->stop();
    }
};
pcntl_async_signals(true);
foreach ([SIGTERM, SIGINT] as $sig) {
    pcntl_signal($sig, function () use ($cleanup) { $cleanup(); exit(130); });
}
register_shutdown_function($cleanup);

// ---- the faults -------------------------------------------------------------
$runFault = function (array $f) use (&$TOPO, &$workers, $pickWorker, $pickEach, $stateOf, $startWorker, $ev, $idle, &$phaseNo, $LEASE): void {
    $type = $f['type'];
    $target = [];
    $s = hrtime(true);
    $start = function (array $extra = []) use (&$s, $ev, $type, $f, &$phaseNo, &$target): void {
        $s = hrtime(true);
        $target = $extra;
        $ev(['op' => 'fault', 'phase' => $phaseNo, 'type' => $type, 'params' => $f, 'target' => $extra, 's' => $s]);
    };
    switch ($type) {
        case 'client-pause':
            // a holder of each primitive, stopped together
            $ids = $pickEach('H');
            $holding = $ids !== [];
            $ids = $ids ?: ['none' => $pickWorker(false) ?? array_key_first($workers)];
            $start(['workers' => array_values($ids), 'held' => array_map($stateOf, $ids),
                    'pids' => array_map(fn ($id) => $workers[$id]['pid'], array_values($ids)), 'was_holding' => $holding]);
            foreach ($ids as $id) {
                posix_kill($workers[$id]['pid'], SIGSTOP);
            }
            usleep((int) ($f['seconds'] * 1e6));
            foreach ($ids as $id) {
                posix_kill($workers[$id]['pid'], SIGCONT);
            }
            break;
        case 'client-kill-holding':
        case 'client-kill-waiting':
            // a holder (a waiter) of each primitive
            $ids = $pickEach($type === 'client-kill-holding' ? 'H' : 'W');
            $holding = $ids !== [] ? $type === 'client-kill-holding' : null;
            $ids = $ids ?: ['none' => $pickWorker(false) ?? array_key_first($workers)];
            $start(['workers' => array_values($ids), 'held' => array_map($stateOf, $ids),
                    'pids' => array_map(fn ($id) => $workers[$id]['pid'], array_values($ids)), 'was_holding' => $holding]);
            foreach ($ids as $id) {
                posix_kill($workers[$id]['pid'], SIGKILL);
            }
            foreach ($ids as $id) {
                proc_close($workers[$id]['proc']);
                unset($workers[$id]);
                $target['replacements'][] = $startWorker();
            }
            break;
        case 'server-pause':
            $start(['server' => $TOPO->main->port]);
            $TOPO->main->signal(SIGSTOP);
            usleep((int) ($f['seconds'] * 1e6));
            $TOPO->main->signal(SIGCONT);
            break;
        case 'restart-aof':
        case 'restart-volatile':
            $start(['server' => $TOPO->main->port]);
            $TOPO->main->crash();
            if ($type === 'restart-volatile') {
                $TOPO->main->wipe();
            }
            $TOPO->main->start();
            break;
        case 'proxy-delay':
            $start(['proxy' => $TOPO->proxyPort]);
            $TOPO->proxyCmd("delay {$f['delay_ms']}");
            usleep((int) ($f['seconds'] * 1e6));
            $TOPO->proxyCmd('normal');
            break;
        case 'proxy-stall':
            $start(['proxy' => $TOPO->proxyPort]);
            $TOPO->proxyCmd('stall');
            usleep((int) ($f['seconds'] * 1e6));
            $TOPO->proxyCmd('normal');
            break;
        case 'proxy-reset':
            $start(['proxy' => $TOPO->proxyPort]);
            $TOPO->proxyCmd('refuse');
            usleep((int) ($f['seconds'] * 1e6));
            $TOPO->proxyCmd('normal');
            break;
        case 'clock-jump':
            $start(['server' => $TOPO->main->port, 'offset_s' => $TOPO->clockOffset + $f['jump_s']]);
            if ($TOPO->clockFile === '') {
                throw new \RuntimeException('clock-jump: no faked server (--fake-server/--fake-lib)');
            }
            $TOPO->clockJump($f['jump_s']);
            break;
        case 'sentinel-failover':
        case 'sentinel-failover-minrep':
            // the master as the sentinels say now (an earlier failover of this phase swapped the roles)
            $old = $TOPO->serverAt($TOPO->sentinelMaster() ?? $TOPO->masters[0]->port) ?? $TOPO->masters[0];
            $start(['master' => $old->port]);
            $old->crash();
            $TOPO->waitFor(fn () => ($p = $TOPO->sentinelMaster()) !== null && $p !== $old->port, 60, 'sentinel failover');
            $new = $TOPO->sentinelMaster();
            $target['new_master'] = $new;
            // As an operator would: the old master comes back (empty: no persistence) as the new
            // master's replica, as Sentinel itself would reconfigure it. Restarted with its old
            // configuration it would first come up as an empty master, for the 8-10 s Sentinel
            // waits before converting it (4 hello periods, then its next INFO): a candidate for
            // the next failover meanwhile, should the new master look down (seen here once, under
            // load and with Sentinel's INFO period shortened: the empty node was promoted and the
            // fencing counter went back to 1). With min_replicas = 1 no grant can be
            // made until the replica is back (the promoted node has none): that is the
            // documented price of min_replicas, not a stall of the library.
            $old->start(20.0, ['--replicaof', '127.0.0.1', (string) $new]);
            $TOPO->waitFor(function () use ($TOPO) {
                $m = $TOPO->serverAt((int) $TOPO->sentinelMaster());
                $info = $m?->redis(0.5)->info('replication') ?? [];
                return (int) ($info['connected_slaves'] ?? 0) >= 1 && str_contains((string) ($info['slave0'] ?? ''), 'state=online');
            }, 60, 'the old master back as a replica');
            $target['rejoined_as_replica'] = true;
            // the roles swapped: the next failover of this phase kills the current master
            $m = $TOPO->serverAt((int) $TOPO->sentinelMaster());
            $pair = [$TOPO->masters[0], $TOPO->replica];    // the two data servers, whatever their roles
            if ($m !== null) {
                $TOPO->masters = [$m];
                $TOPO->replica = $pair[0] === $m ? $pair[1] : $pair[0];
            }
            break;
        case 'cluster-failover':
            $key = 'lock:{p' . $phaseNo . '}a';
            $old = $TOPO->clusterOwner($key);
            $start(['master' => $old?->port]);
            $old?->crash();
            $TOPO->waitFor(function () use ($TOPO, $key, $old) {
                $n = $TOPO->clusterOwner($key);
                if ($n === null || $n === $old) {
                    return false;
                }
                return str_contains((string) $n->redis(0.5)->rawCommand('CLUSTER', 'INFO'), 'cluster_state:ok');
            }, 60, 'cluster failover');
            $target['new_master'] = $TOPO->clusterOwner($key)?->port;
            // the old node comes back (its nodes.conf names the cluster) as the new master's
            // replica, so that a later failover in this phase has a replica to promote
            if ($old !== null) {
                $old->start();
                $TOPO->waitFor(fn () => ($old->redis(0.5)->info('replication')['role'] ?? '') === 'slave', 60,
                    'the old master back as a replica');
                $target['rejoined_as_replica'] = true;
            }
            break;
        case 'redlock-stop-minority':
        case 'redlock-stop-majority':
            $k = $type === 'redlock-stop-minority' ? 2 : 3;
            $ms = $TOPO->masters;
            shuffle($ms);   // seeded (mt_srand): shuffle() uses the Mt19937 generator
            $ms = array_slice($ms, 0, $k);
            $start(['masters' => array_map(fn ($m) => $m->port, $ms)]);
            foreach ($ms as $m) {
                $m->signal(SIGSTOP);
            }
            usleep((int) ($f['seconds'] * 1e6));
            foreach ($ms as $m) {
                $m->signal(SIGCONT);
            }
            break;
        case 'redlock-restart-minority':
            // 2 of 5 masters killed and restarted empty (no persistence), each after one lease and
            // more: every lease they held has run out by then (antirez, "Is Redlock safe?": delayed restarts)
            $ms = $TOPO->masters;
            shuffle($ms);
            $ms = array_slice($ms, 0, 2);
            $start(['masters' => array_map(fn ($m) => $m->port, $ms), 'down_s' => $f['seconds']]);
            foreach ($ms as $m) {
                $m->crash();
                $m->wipe();
            }
            usleep((int) ($f['seconds'] * 1e6));
            foreach ($ms as $m) {
                $m->launch();
            }
            foreach ($ms as $m) {
                $m->waitUp();
            }
            break;
        case 'redlock-restart-majority':
            $ms = $TOPO->masters;
            shuffle($ms);
            $ms = array_slice($ms, 0, 3);
            $start(['masters' => array_map(fn ($m) => $m->port, $ms)]);
            foreach ($ms as $m) {
                $m->crash();
                $m->wipe();
                $m->start();
            }
            break;
        default:
            throw new \ValueError("unknown fault $type");
    }
    $ev(['op' => 'fault_end', 'phase' => $phaseNo, 'type' => $type, 'target' => $target, 's' => $s, 'e' => hrtime(true)]);
    log_line(sprintf('  %-26s %s', $type, json_encode($target)));
};

// ---- the phases -------------------------------------------------------------
$nFaults = 0;
/** One phase: its topology, its workers, its faults, then the workload stopped and the keys checked. */
$phasePrims = [];
$runPhase = function (int $no, array $entry) use (&$phaseNo, &$TOPO, &$workers, &$cfgFile, &$nFaults, $startWorker, $runFault,
        $idle, $lockKeys, $scanKeys, $ev, $resource, $OUT, $BIN, $FAKE_BIN, $FAKE_LIB, $CLI, $LIB, $SEED, $WORKERS, $TAIL,
        $LEASE, $deadline, $t0, $PRIMS, $BREAK, &$phasePrims): void {
    $phaseNo = $no;
    $phase = $entry['phase'];
    $kind = $phase === 'sentinel-minrep' ? 'sentinel' : $phase;
    $began = microtime(true);
    $TOPO = new Topology($kind, "$OUT/p$phaseNo-$phase", $BIN, $FAKE_BIN, $FAKE_LIB, $CLI);
    try {
        $TOPO->start($phase === 'sentinel-minrep' ? ['min_replicas' => 1] : []);
    } catch (\Throwable $e) {
        $ev(['op' => 'phase_error', 'phase' => $phaseNo, 'name' => $phase, 'error' => $e->getMessage()]);
        log_line("phase $phaseNo $phase: could not start: " . $e->getMessage());
        $TOPO->stop();
        $TOPO = null;
        return;
    }
    $setup = microtime(true) - $began;
    // every name in one hash slot ({pN}): Cluster's failover hits them all; one name set per kind,
    // but the multi-lock's, which overlaps the mutex's (one kind)
    $tag = fn (string $c) => '{p' . $phaseNo . '}' . $c;
    $names = array_map($tag, ['a', 'b', 'c']);
    $multiNames = array_map($tag, ['a', 'b', 'c', 'd']);
    $rwNames = array_map($tag, ['rw1', 'rw2']);
    $sem = [[$tag('s3'), 3], [$tag('s2'), 2]];
    $phasePrims = $kind === 'redlock' ? ['mutex'] : $PRIMS;
    $cfgFile = "$OUT/p$phaseNo-config.json";
    file_put_contents($cfgFile, json_encode(['lib' => $LIB, 'topo' => $TOPO->topo, 'names' => $names, 'multi_names' => $multiNames,
        'rw_names' => $rwNames, 'sem' => $sem, 'primitives' => $phasePrims, 'break' => $BREAK,
        'resource_port' => $resource->port, 'dir' => $OUT, 'seed' => $SEED + $phaseNo], JSON_UNESCAPED_SLASHES));
    $ev(['op' => 'phase', 'phase' => $phaseNo, 'name' => $phase, 'kind' => $kind, 'names' => $names, 'multi_names' => $multiNames,
         'rw_names' => $rwNames, 'sem' => $sem, 'primitives' => $phasePrims, 'topo' => $TOPO->topo,
         'setup_s' => round($setup, 2), 's' => hrtime(true)]);
    log_line(sprintf('phase %d: %s (%d faults; servers up in %.1f s) at %.1f s', $phaseNo, $phase, count($entry['faults']), $setup,
        microtime(true) - $t0));
    $workers = [];
    for ($i = 0; $i < $WORKERS; $i++) {
        $startWorker();
    }
    $idle(1.5);   // warm-up: every worker connected and cycling
    foreach ($entry['faults'] as $f) {
        if (microtime(true) >= $deadline) {
            break;
        }
        $idle($f['gap']);
        try {
            $runFault($f);
            $nFaults++;
        } catch (\Throwable $e) {
            $ev(['op' => 'fault_error', 'phase' => $phaseNo, 'type' => $f['type'], 'error' => $e->getMessage()]);
            log_line("  {$f['type']}: " . $e->getMessage());
        }
        $idle($TAIL);
    }
    // stop the workload: SIGTERM ends each worker after its cycle; a worker
    // still waiting after 15 s (symfony/lock waits without limit) is killed
    $ev(['op' => 'stop', 'phase' => $phaseNo, 's' => hrtime(true)]);
    foreach ($workers as $w) {
        posix_kill($w['pid'], SIGCONT);
        posix_kill($w['pid'], SIGTERM);
    }
    $end = microtime(true) + 15;
    foreach ($workers as $id => $w) {
        while (proc_get_status($w['proc'])['running'] && microtime(true) < $end) {
            usleep(20000);
        }
        if (proc_get_status($w['proc'])['running']) {
            posix_kill($w['pid'], SIGKILL);
            $ev(['op' => 'stop_kill', 'phase' => $phaseNo, 'worker' => $id, 'pid' => $w['pid']]);
        }
        proc_close($w['proc']);
    }
    $workers = [];
    $ev(['op' => 'stopped', 'phase' => $phaseNo, 's' => hrtime(true)]);
    // What a killed holder left expires within one lease: wait until no lock key
    // is left (polled every 0.1 s), for one lease + 1 s at most; what is there
    // then is left behind.
    $drainFrom = microtime(true);
    $drainEnd = $drainFrom + $LEASE + 1.0;
    while (microtime(true) < $drainEnd) {
        $scanKeys(false);
        if ($lockKeys() === []) {
            break;
        }
        usleep(100000);
    }
    $drained = microtime(true) - $drainFrom;
    $scanKeys(true);
    require_once __DIR__ . '/lib/Resource.php';
    $ev(['op' => 'resource', 'phase' => $phaseNo, 'totals' => Resource::totals($resource->port, array_merge($multiNames, $rwNames))]);
    $ev(['op' => 'phase_end', 'phase' => $phaseNo, 'drain_s' => round($drained, 2), 's' => hrtime(true)]);
    $TOPO->stop();
    $TOPO = null;
    log_line(sprintf('phase %d: %s done in %.1f s (lock keys gone %.1f s after the workload stopped)', $phaseNo, $phase,
        microtime(true) - $began, $drained));
};

/** A lane: the schedule's phases named in $lane, in schedule order (phase numbers are schedule positions, unique across lanes). */
$runLane = function (array $lane) use ($schedule, $runPhase, $deadline): void {
    foreach ($schedule as $i => $entry) {
        if (microtime(true) >= $deadline) {
            break;
        }
        if (in_array($entry['phase'], $lane, true)) {
            $runPhase($i + 1, $entry);
        }
    }
};

if (count($lanes) === 1) {
    $runLane($lanes[0]);
} else {
    foreach ($lanes as $k => $lane) {
        $pid = pcntl_fork();
        if ($pid === -1) {
            throw new \RuntimeException('fork failed');
        }
        if ($pid === 0) {
            $lanePids = [];
            $nem = fopen("$OUT/nemesis.jsonl", 'a');
            mt_srand($SEED * 10 + $k + 1);   // the lane's own draws (workers to stop, masters to restart)
            log_tag(' lane ' . ($k + 1));
            $runLane($lane);
            exit(0);
        }
        $lanePids[$k] = $pid;
    }
    foreach ($lanePids as $k => $pid) {
        pcntl_waitpid($pid, $st);
        $rc = pcntl_wifexited($st) ? pcntl_wexitstatus($st) : 128 + pcntl_wtermsig($st);
        if ($rc !== 0) {
            $ev(['op' => 'lane_error', 'lane' => $k + 1, 'phases' => $lanes[$k], 'error' => "the lane's process exited $rc"]);
            log_line('lane ' . ($k + 1) . " exited $rc");
        }
        unset($lanePids[$k]);
    }
    $nFaults = 0;
    foreach (file("$OUT/nemesis.jsonl") as $l) {
        $nFaults += (int) str_contains($l, '"op":"fault_end"');
    }
}
$ev(['op' => 'end', 'faults' => $nFaults, 'seconds' => round(microtime(true) - $t0, 1)]);
log_line(sprintf('done: %d faults in %.0f s', $nFaults, microtime(true) - $t0));
