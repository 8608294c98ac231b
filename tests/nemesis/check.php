<?php
/*
 * The campaign's checker: reads a run's directory (nemesis.jsonl and the
 * workers' history-*.jsonl) and decides, per fault type, what broke.
 *
 *   php check.php DIR [--json=FILE] [--margin=SECONDS] [--checks]
 *
 * Every anomaly is tied to the fault in whose window it began: from the
 * fault's start to its end plus one lease plus 1.5 s (faults run one at a
 * time, so windows do not overlap; the faults that change the rest of a phase,
 * LASTING, keep their window until its workload stops); outside every window it is tied to
 * "none" (the workload alone), where nothing is allowed.
 *
 * Every grant has a primitive (PRIM_OF): mutex, rw (shared and exclusive
 * leases), semaphore (permits), multi (a multi-lock: one lease per member
 * name, on the mutex's names). Its interval runs from acquire returned to
 * release called (a killed worker's ends at its death). Per phase and name:
 *
 * exclusion   two holders of one mutex-kind name whose intervals overlap: a
 *             mutex against a mutex, a multi-lock member against either;
 *             "allowed" under the faults that the documentation says break
 *             mutual exclusion (ALLOWED below), "forbidden" elsewhere.
 * rw          a writer (exclusive lease) beside a reader or another writer,
 *             or a reader whose two reads of the resource differ (a write
 *             landed beside it): allowed or forbidden as exclusion.
 * permits     a grant that makes the permits held at once exceed the limit:
 *             allowed or forbidden as exclusion.
 * multi       a multi-lock whose handles are not the names it asked (all or
 *             none: forbidden everywhere), and the forbidden overlaps above
 *             that involve a multi-lock member.
 * fencing     stale accepted: an access accepted by the resource with a token
 *             lower than one it had already accepted for that name (along the
 *             resource's own sequence), or an equal token of another grant:
 *             forbidden everywhere (mutex, exclusive writers, multi-lock
 *             members: the kinds that carry tokens). Stale rejected: the
 *             resource refused a stale token (fencing doing its job). Lost
 *             updates: a write based on a value someone else had changed:
 *             forbidden for a grant with fencing tokens; without them (the
 *             peers, Redlock) they follow the overlap's classification.
 * liveness    an acquire longer than wait + 2 x timeout + margin, a release or
 *             refresh longer than 2 x timeout + margin (ops of a worker while
 *             SIGSTOPped are left out); a lock key without a TTL; a key left
 *             one lease after the workload stopped; a fault after which a
 *             primitive of its phase had no grant within its window
 *             ("stalled"). Forbidden.
 * signals     grants that lost their lease (overtaken by a later grant that
 *             breaks their primitive's rule while they still hold; for a
 *             semaphore, the oldest holders, as many as the excess), split
 *             into those the library told (release() or refresh() said "not
 *             ours") and those it did not. Reported, not judged.
 *
 * Every count is kept per fault type and per primitive (the JSON report's
 * rows[fault].kinds[primitive]); the fault's totals sum them.
 *
 * Prints the per-fault report; with --checks also one line per fault type
 * and check, "CHECK <fault> <check> ok|FAIL <detail>" (tests/nemesis/run.sh
 * counts them); ends with "nemesis: N operations, N faults, N forbidden
 * anomalies" and exits 1 when any anomaly is forbidden.
 */
declare(strict_types=1);

namespace Nemesis;

/** Faults under which overlapping holders are documented (docs/guarantees.md). */
const ALLOWED = [
    'client-pause' => 'the lease ran out while the holder was stopped (Kleppmann: process pauses)',
    'restart-volatile' => 'the server forgot every lease (redis.io: restart without persistence)',
    'clock-jump' => "the server's clock jumped past every lease (redis.io, Kleppmann: timing assumptions)",
    'sentinel-failover' => 'asynchronous replication: the promoted replica had not received the grant',
    'cluster-failover' => 'asynchronous replication: the promoted replica had not received the grant',
    'redlock-restart-majority' => 'a majority forgot the lease (antirez: delayed restarts are required)',
];
// Not allowed, though a restart without persistence: redlock-restart-minority, whose 2 masters come
// back empty only after one lease (the delayed restart Redlock requires): every lease they held has
// run out by then, so coming back empty they forget nothing that still counts (docs/guarantees.md).

/** A grant's kind (the history's "k") => its primitive (as tests/nemesis/lib/Libs.php). */
const PRIM_OF = ['mutex' => 'mutex', 'multi' => 'multi', 'shared' => 'rw', 'exclusive' => 'rw', 'permits' => 'semaphore'];
const KIND_ORDER = ['mutex', 'rw', 'semaphore', 'multi'];

/** Faults whose effects last until the end of their phase: their window runs until the workload stops. */
const LASTING = ['restart-volatile', 'redlock-restart-majority', 'sentinel-failover', 'sentinel-failover-minrep', 'cluster-failover'];

// DIR and the options in any order (getopt() would stop at DIR)
$opt = [];
$dir = null;
foreach (array_slice($argv, 1) as $a) {
    if ($a === '--checks') {
        $opt['checks'] = true;
    } elseif (preg_match('/^--(json|margin)=(.*)$/s', $a, $m)) {
        $opt[$m[1]] = $m[2];
    } elseif ($dir === null && !str_starts_with($a, '--')) {
        $dir = $a;
    } else {
        exit("usage: check.php DIR [--json=FILE] [--margin=S] [--checks]\n");
    }
}
$dir ?? exit("usage: check.php DIR [--json=FILE] [--margin=S] [--checks]\n");
$CHECKS = isset($opt['checks']);

$nem = [];
foreach (file("$dir/nemesis.jsonl") as $l) {
    $nem[] = json_decode($l, true);
}
$run = $nem[0];
$lease = (float) $run['lease'];
$tail = (float) $run['tail'];
$wait = $run['wait'] === null ? INF : (float) $run['wait'];
$timeout = (float) $run['timeout'];
$fenced = (bool) $run['fenced'];
// margin for a loaded machine: 3 s, scaled by the load per cpu at the start when above 1
$margin = isset($opt['margin']) ? (float) $opt['margin'] : 3.0 * max(1.0, (float) $run['load'] / max(1, (int) $run['ncpu']));
$boundAcquire = $wait + 2 * $timeout + $margin;
$boundRelease = 2 * $timeout + $margin;
$NS = 1e9;

// ---- faults and their windows -------------------------------------------------
$faults = [];       // list of [type, phase, s, e, wend, target]
$phases = [];       // phase => info
$leftover = [];
$nottl = [];
$stopKills = [];    // worker id => t
$faultErrors = [];
$phaseErrors = [];
$resourceTotals = [];
foreach ($nem as $e) {
    switch ($e['op']) {
        case 'phase':
            $phases[$e['phase']] = ['name' => $e['name'], 's' => $e['s'], 'e' => null, 'stop' => null,
                                    'primitives' => $e['primitives'] ?? ['mutex']];
            break;
        case 'stop':
            $phases[$e['phase']]['stop'] = $e['s'];
            break;
        case 'phase_end':
            $phases[$e['phase']]['e'] = $e['s'];
            break;
        case 'fault_end':
            $faults[] = ['type' => $e['type'], 'phase' => $e['phase'], 's' => $e['s'], 'e' => $e['e'],
                         'wend' => $e['e'] + (int) ($tail * $NS), 'target' => $e['target']];
            break;
        case 'stopped':
            // the faults that change the rest of a phase (a restart that reset the
            // fencing counter, a failover) keep their window until its workload stops
            foreach ($faults as &$f) {
                if ($f['phase'] === $e['phase'] && in_array($f['type'], LASTING, true)) {
                    $f['wend'] = max($f['wend'], $e['s']);
                }
            }
            unset($f);
            break;
        case 'leftover':
            $leftover[] = $e;
            break;
        case 'nottl':
            $nottl[] = $e;
            break;
        case 'stop_kill':
            $stopKills[$e['worker']] = $e['t'];
            break;
        case 'fault_error':
            $faultErrors[] = $e;
            break;
        case 'phase_error':
            $phaseErrors[] = $e;
            break;
        case 'lane_error':
            $phaseErrors[] = ['name' => 'lane' . $e['lane'], 'error' => $e['error'] . ' (phases ' . implode(', ', $e['phases']) . ')'];
            break;
        case 'resource':
            $resourceTotals[$e['phase']] = $e['totals'];
            break;
    }
}
$deaths = [];   // worker id => t (SIGKILL by the nemesis)
$pauses = [];   // worker id => list of [s, e]
foreach ($faults as $f) {
    // one worker (the runs before the primitives) or one per primitive
    $ids = $f['target']['workers'] ?? (isset($f['target']['worker']) ? [$f['target']['worker']] : []);
    foreach ($ids as $id) {
        if (str_starts_with($f['type'], 'client-kill')) {
            $deaths[$id] = $f['s'];
        }
        if ($f['type'] === 'client-pause') {
            $pauses[$id][] = [$f['s'], $f['e']];
        }
    }
}
$attribute = function (int $phase, int $t) use ($faults): string {
    $best = 'none';
    foreach ($faults as $f) {
        if ($f['phase'] === $phase && $t >= $f['s'] && $t <= $f['wend']) {
            $best = $f['type'];
        }
    }
    return $best;
};

// ---- the workers' histories -------------------------------------------------------
$ops = 0;
$grants = [];     // grant id => [...]
$accesses = [];   // phase:name => list of [seq, fence, grant, t]
$slow = [];       // list of [type, op, duration, worker, primitive]
$lostSignalsLib = 0;
$maxAcquire = [];   // fault type => primitive => s
foreach (glob("$dir/history-*.jsonl") as $file) {
    foreach (file($file) as $l) {
        $h = json_decode($l, true);
        if ($h === null) {
            continue;   // a line cut by SIGKILL
        }
        $ops++;
        $phase = (int) explode('.', $h['p'])[0];
        $op = $h['op'];
        if ($op === 'exit') {
            $lostSignalsLib += (int) ($h['lost_signals'] ?? 0);
            continue;
        }
        $g = $h['g'] ?? null;
        if ($op === 'acquire' && $h['r'] === 'ok') {
            $k = $h['k'] ?? 'mutex';
            // name => fencing token: a multi-lock's members as the handles returned name them
            $held = $k === 'multi' ? ($h['fs'] ?? array_fill_keys($h['hs'] ?? [], null)) : [$h['n'] => $h['f'] ?? null];
            $grants[$g] = ['p' => $h['p'], 'phase' => $phase, 'k' => $k, 'prim' => PRIM_OF[$k] ?? 'mutex', 'n' => $h['n'],
                           'names' => $held, 'asked' => $h['ns'] ?? [$h['n']], 'pm' => (int) ($h['pm'] ?? 1),
                           'lim' => (int) ($h['lim'] ?? 1), 's' => $h['e'], 'e' => null, 'told' => false, 'stale' => false,
                           'overtaken' => null];
        }
        if (($op === 'release' || $op === 'refresh') && $h['r'] === 'lost' && isset($grants[$g])) {
            $grants[$g]['told'] = true;
        }
        if ($op === 'release' && isset($grants[$g])) {
            $grants[$g]['e'] = $h['s'];
        }
        if (($op === 'read' || $op === 'write' || $op === 'reread') && isset($grants[$g])) {
            if ($h['r'] === 'stale') {
                $grants[$g]['stale'] = true;
                $grants[$g]['stale_ops'][] = $h['s'];
            } else {
                $accesses[$phase . ':' . $h['n']][] = ['q' => (int) $h['q'], 'f' => $h['f'] ?? null, 'g' => $g, 't' => $h['s']];
            }
            if ($op === 'write' && $h['r'] === 'lost') {
                $grants[$g]['lost_update'] ??= $h['s'];
            }
            if ($op === 'reread' && (string) $h['v'] !== (string) $h['was']) {
                $grants[$g]['dirty'] ??= $h['s'];    // a write landed while this reader held its shared lease
            }
        }
        // liveness: durations against their bounds, except while the worker was stopped
        if (in_array($op, ['acquire', 'release', 'refresh'], true)) {
            $paused = false;
            foreach ($pauses[$h['p']] ?? [] as [$ps, $pe]) {
                if ($h['s'] <= $pe && $h['e'] >= $ps) {
                    $paused = true;
                }
            }
            $d = ($h['e'] - $h['s']) / $NS;
            $type = $attribute($phase, $h['e']);
            $prim = $op === 'acquire' ? (PRIM_OF[$h['k'] ?? 'mutex'] ?? 'mutex') : ($grants[$g]['prim'] ?? 'mutex');
            if (!$paused && $op === 'acquire') {
                $maxAcquire[$type][$prim] = max($maxAcquire[$type][$prim] ?? 0, $d);
            }
            $bound = $op === 'acquire' ? $boundAcquire : $boundRelease;
            if (!$paused && $d > $bound) {
                $slow[] = ['type' => $type, 'op' => $op, 'd' => round($d, 2), 'p' => $h['p'], 'r' => $h['r'], 'x' => $h['x'] ?? null,
                           'prim' => $prim];
            }
        }
    }
}
// a grant without a release ends at its worker's death, or when the phase's workload stopped
foreach ($grants as $g => &$gr) {
    if ($gr['e'] === null) {
        $gr['e'] = $deaths[$gr['p']] ?? $stopKills[$gr['p']] ?? $phases[$gr['phase']]['stop'] ?? PHP_INT_MAX;
    }
}
unset($gr);

// ---- the report's rows ----------------------------------------------------------
$types = ['none'];
foreach ($faults as $f) {
    $types[] = $f['type'];
}
$types = array_values(array_unique($types));
// per primitive: overlap_* counts the breaches of the primitive's own rule (two holders of a
// mutex-kind name; a writer beside a reader or writer; more permits than the limit); dirty_*
// a reader's value changed under it; partial a multi-lock whose handles were not the names asked
$kindRow = fn () => ['grants' => 0, 'overlap_allowed' => 0, 'overlap_forbidden' => 0, 'dirty_allowed' => 0,
    'dirty_forbidden' => 0, 'partial' => 0, 'multi_pairs_forbidden' => 0, 'stale_accepted' => 0, 'stale_rejected' => 0,
    'lost_updates' => 0, 'lost_updates_forbidden' => 0, 'slow_acquire' => 0, 'slow_release' => 0, 'max_acquire_s' => 0.0,
    'stalled' => 0, 'lost_told' => 0, 'lost_untold' => 0];
$row = fn () => ['faults' => 0, 'grants' => 0, 'overlap_allowed' => 0, 'overlap_forbidden' => 0, 'stale_accepted' => 0,
    'stale_rejected' => 0, 'lost_updates' => 0, 'lost_updates_forbidden' => 0, 'slow_acquire' => 0, 'slow_release' => 0,
    'max_acquire_s' => 0.0, 'no_ttl' => 0, 'left' => 0, 'stalled' => 0, 'lost_told' => 0, 'lost_untold' => 0, 'kinds' => []];
$R = [];
foreach ($types as $t) {
    $R[$t] = $row();
}
foreach ($faults as $f) {
    $R[$f['type']]['faults']++;
}
/** Adds $n to counter $c of fault type $t, in its primitive's row and (but max_acquire_s) in the fault's totals. */
$count = function (string $t, string $prim, string $c, int $n = 1) use (&$R, $kindRow): void {
    $R[$t]['kinds'][$prim] ??= $kindRow();
    $R[$t]['kinds'][$prim][$c] += $n;
    if (array_key_exists($c, $R[$t]) && $c !== 'kinds') {
        $R[$t][$c] += $n;
    }
};
$examples = [];
$example = function (string $x) use (&$examples): void {
    if (count($examples) < 30) {
        $examples[] = $x;
    }
};

// exclusion, readers-writer, permits: one sweep per phase and name over the grants' intervals
$byName = [];
foreach ($grants as $g => $gr) {
    foreach (array_keys($gr['names']) as $n) {
        $byName[$gr['phase'] . ':' . $n][] = $g;
    }
    $count($attribute($gr['phase'], $gr['s']), $gr['prim'], 'grants');
}
foreach ($grants as $g => $gr) {
    // all or none: a multi-lock's handles name exactly the names asked (the same set, each once)
    if ($gr['k'] === 'multi') {
        $asked = $gr['asked'];
        $held = array_map('strval', array_keys($gr['names']));
        sort($asked);
        sort($held);
        if ($asked !== $held) {
            $type = $attribute($gr['phase'], $gr['s']);
            $count($type, 'multi', 'partial');
            $example(sprintf('partial multi-lock (%s): grant %s asked %s, holds %s', $type, $g, implode(',', $gr['asked']),
                implode(',', $held)));
        }
    }
}
foreach ($byName as $key => $list) {
    usort($list, fn ($a, $b) => $grants[$a]['s'] <=> $grants[$b]['s']);
    $active = [];
    foreach ($list as $g) {
        $gr = $grants[$g];
        $active = array_values(array_filter($active, fn ($a) => $grants[$a]['e'] > $gr['s']));
        $type = $attribute($gr['phase'], $gr['s']);
        $allowed = isset(ALLOWED[$type]);
        if ($gr['k'] === 'permits') {
            // never more permits held than the limit
            $used = $gr['pm'];
            foreach ($active as $a) {
                $used += $grants[$a]['pm'];
            }
            if ($used > $gr['lim']) {
                $count($type, 'semaphore', $allowed ? 'overlap_allowed' : 'overlap_forbidden');
                // the leases lost: the oldest holders', as many as the excess
                $excess = $used - $gr['lim'];
                foreach ($active as $a) {
                    if ($excess <= 0) {
                        break;
                    }
                    $grants[$a]['overtaken'] ??= $gr['s'];
                    $excess -= $grants[$a]['pm'];
                }
                if (!$allowed) {
                    $example(sprintf('forbidden: %d permits of %d held (%s) on %s from %.3f, grant %s with %s', $used, $gr['lim'],
                        $type, $key, $gr['s'] / $NS, $g, implode(', ', $active)));
                }
            }
        } else {
            // a mutex-kind name: nobody beside anyone; readers-writer: a writer beside no one, a reader beside no writer
            foreach ($active as $a) {
                if ($gr['k'] === 'shared' && $grants[$a]['k'] === 'shared') {
                    continue;
                }
                $count($type, $gr['prim'], $allowed ? 'overlap_allowed' : 'overlap_forbidden');
                $grants[$a]['overtaken'] ??= $gr['s'];
                if (!$allowed) {
                    if ($gr['k'] === 'multi' || $grants[$a]['k'] === 'multi') {
                        $count($type, 'multi', 'multi_pairs_forbidden');
                    }
                    $example(sprintf('forbidden overlap (%s) on %s: %s grant %s [%.3f, %.3f] and %s grant %s from %.3f', $type, $key,
                        $grants[$a]['k'], $a, $grants[$a]['s'] / $NS, $grants[$a]['e'] / $NS, $gr['k'], $g, $gr['s'] / $NS));
                }
            }
        }
        $active[] = $g;
    }
}

// fencing: along the resource's sequence, accepted tokens never go down
foreach ($accesses as $key => $list) {
    usort($list, fn ($a, $b) => $a['q'] <=> $b['q']);
    $maxF = null;
    $maxG = null;
    foreach ($list as $a) {
        if ($a['f'] === null) {
            continue;
        }
        if ($maxF !== null && ($a['f'] < $maxF || ($a['f'] === $maxF && $a['g'] !== $maxG))) {
            $type = $attribute((int) explode(':', $key)[0], $a['t']);
            $count($type, $grants[$a['g']]['prim'] ?? 'mutex', 'stale_accepted');
            $example("stale token accepted ($type) on $key: {$a['f']} of {$a['g']} after $maxF of $maxG");
        }
        if ($maxF === null || $a['f'] > $maxF) {
            $maxF = $a['f'];
            $maxG = $a['g'];
        }
    }
}
foreach ($grants as $g => $gr) {
    foreach ($gr['stale_ops'] ?? [] as $t) {
        $count($attribute($gr['phase'], $t), $gr['prim'], 'stale_rejected');
    }
    $fencedGrant = array_filter($gr['names'], fn ($f) => $f !== null) !== [];
    if (isset($gr['lost_update'])) {
        $type = $attribute($gr['phase'], $gr['lost_update']);
        $count($type, $gr['prim'], 'lost_updates');
        if ($fencedGrant || !isset(ALLOWED[$type])) {
            $count($type, $gr['prim'], 'lost_updates_forbidden');
            $example("lost update ($type) by {$gr['k']} grant $g on {$gr['n']}");
        }
    }
    if (isset($gr['dirty'])) {
        // a reader saw a write beside it: a writer beside a reader, seen at the resource
        $type = $attribute($gr['phase'], $gr['dirty']);
        $allowed = isset(ALLOWED[$type]);
        $count($type, 'rw', $allowed ? 'dirty_allowed' : 'dirty_forbidden');
        if (!$allowed) {
            $example("forbidden: a write beside reader $g on {$gr['n']} ($type)");
        }
    }
    if ($gr['overtaken'] !== null) {
        $count($attribute($gr['phase'], $gr['overtaken']), $gr['prim'], $gr['told'] ? 'lost_told' : 'lost_untold');
    }
}

// liveness
foreach ($slow as $x) {
    $count($x['type'], $x['prim'], $x['op'] === 'acquire' ? 'slow_acquire' : 'slow_release');
    $example("slow {$x['op']} ({$x['type']}, {$x['prim']}): {$x['d']} s by worker {$x['p']}, result {$x['r']}" . ($x['x'] ? " ({$x['x']})" : ''));
}
foreach ($maxAcquire as $t => $byPrim) {
    foreach ($byPrim as $prim => $d) {
        $R[$t]['kinds'][$prim] ??= $kindRow();
        $R[$t]['kinds'][$prim]['max_acquire_s'] = round($d, 2);
        $R[$t]['max_acquire_s'] = max($R[$t]['max_acquire_s'], round($d, 2));
    }
}
foreach ($nottl as $e) {
    $R[$attribute($e['phase'], $e['t'])]['no_ttl']++;
    $example("key without TTL: {$e['key']} on port {$e['port']}");
}
foreach ($leftover as $e) {
    $R['none']['left']++;
    $example("key left after the run: {$e['key']} (pttl {$e['pttl']}) on port {$e['port']}");
}
// stalled: after each fault, every primitive of its phase has a grant within the fault's window
foreach ($faults as $f) {
    foreach ($phases[$f['phase']]['primitives'] as $prim) {
        $ok = false;
        foreach ($grants as $gr) {
            if ($gr['phase'] === $f['phase'] && $gr['prim'] === $prim && $gr['s'] >= $f['e'] && $gr['s'] <= $f['wend']) {
                $ok = true;
                break;
            }
        }
        if (!$ok) {
            $count($f['type'], $prim, 'stalled');
            $example("stalled: no $prim grant within {$tail} s after {$f['type']} (phase {$f['phase']})");
        }
    }
}
foreach ($R as $t => &$r) {
    uksort($r['kinds'], fn ($a, $b) => array_search($a, KIND_ORDER, true) <=> array_search($b, KIND_ORDER, true));
}
unset($r);

// ---- verdicts ---------------------------------------------------------------------
$forbiddenOf = fn (array $r): int => $r['overlap_forbidden'] + $r['stale_accepted'] + $r['lost_updates_forbidden']
    + $r['slow_acquire'] + $r['slow_release'] + $r['no_ttl'] + $r['left'] + $r['stalled']
    + array_sum(array_map(fn ($k) => $k['dirty_forbidden'] + $k['partial'], $r['kinds']));
$forbidden = 0;
foreach ($R as $r) {
    $forbidden += $forbiddenOf($r);
}
$forbidden += count($faultErrors) + count($phaseErrors);
$primsRun = $run['primitives'] ?? ['mutex'];

printf("lib %s (%s), seed %d, %d workers, lease %.1f s, wait %s s, timeout %.1f s; bounds: acquire %.1f s, release/refresh %.1f s (margin %.1f s)\n",
    $run['lib'], implode(', ', $primsRun) . (($run['break'] ?? '') !== '' ? '; BROKEN ' . $run['break'] : ''), $run['seed'],
    $run['workers'], $lease, is_finite($wait) ? (string) $wait : 'none', $timeout, $boundAcquire, $boundRelease, $margin);
$cols = ['faults', 'grants', 'overlap_allowed', 'overlap_forbidden', 'stale_accepted', 'stale_rejected', 'lost_updates',
    'slow_acquire', 'slow_release', 'max_acquire_s', 'no_ttl', 'left', 'stalled', 'lost_told', 'lost_untold'];
$short = ['faults', 'grants', 'ovl ok', 'ovl BAD', 'stale acc', 'stale rej', 'lost upd', 'slow acq', 'slow rel', 'max acq s',
    'no TTL', 'left', 'stalled', 'lost told', 'lost untold'];
printf("%-26s%s\n", 'fault', implode('', array_map(fn ($c) => sprintf('%10s', $c), $short)));
foreach ($R as $t => $r) {
    printf("%-26s%s\n", $t . (isset(ALLOWED[$t]) ? ' *' : ''), implode('', array_map(fn ($c) => sprintf('%10s', $r[$c]), $cols)));
}
echo "  * overlapping holders documented under this fault (docs/guarantees.md); every other overlap is forbidden\n";
if (count($primsRun) > 1) {
    echo "per primitive (ovl: the primitive's own rule broken: two holders of a mutex-kind name, a writer beside a reader\n"
        . "or writer, more permits than the limit; dirty: a reader saw a write; partial: a multi-lock not holding what it asked):\n";
    $kc = ['grants', 'overlap_allowed', 'overlap_forbidden', 'dirty_allowed', 'dirty_forbidden', 'partial', 'stale_accepted',
        'stale_rejected', 'lost_updates', 'slow_acquire', 'max_acquire_s', 'stalled', 'lost_told', 'lost_untold'];
    $ks = ['grants', 'ovl ok', 'ovl BAD', 'dirty ok', 'dirty BAD', 'partial', 'stale acc', 'stale rej', 'lost upd', 'slow acq',
        'max acq s', 'stalled', 'lost told', 'lost untold'];
    printf("%-27s %-10s%s\n", 'fault', 'primitive', implode('', array_map(fn ($c) => sprintf('%10s', $c), $ks)));
    foreach ($R as $t => $r) {
        foreach ($r['kinds'] as $prim => $k) {
            printf("%-27s %-10s%s\n", $t . (isset(ALLOWED[$t]) ? ' *' : ''), $prim, implode('', array_map(fn ($c) => sprintf('%10s', $k[$c]), $kc)));
        }
    }
}
if ($lostSignalsLib > 0) {
    echo "  the library's own lost-lease count (distlock stats()['lost'], the watchdog): $lostSignalsLib\n";
}
foreach ($faultErrors as $e) {
    echo "  fault error: {$e['type']}: {$e['error']}\n";
}
foreach ($phaseErrors as $e) {
    echo "  phase error: {$e['name']}: {$e['error']}\n";
}
foreach (array_unique($examples) as $x) {
    echo "  $x\n";
}
if ($CHECKS) {
    $k = fn (array $r, string $prim, string $c): int => $r['kinds'][$prim][$c] ?? 0;
    $checks = [
        // two holders of one mutex-kind name: mutex against mutex, multi-lock member against either
        'exclusion' => fn ($r) => ($n = $k($r, 'mutex', 'overlap_forbidden') + $k($r, 'multi', 'overlap_forbidden')) === 0 ? ''
            : "$n forbidden overlaps",
        'rw' => fn ($r) => $k($r, 'rw', 'overlap_forbidden') + $k($r, 'rw', 'dirty_forbidden') === 0 ? ''
            : $k($r, 'rw', 'overlap_forbidden') . ' writers beside a reader or writer, ' . $k($r, 'rw', 'dirty_forbidden') . ' reads changed under a shared lease',
        'permits' => fn ($r) => $k($r, 'semaphore', 'overlap_forbidden') === 0 ? ''
            : $k($r, 'semaphore', 'overlap_forbidden') . ' grants over the limit',
        'multi' => fn ($r) => $k($r, 'multi', 'partial') + $k($r, 'multi', 'multi_pairs_forbidden') === 0 ? ''
            : $k($r, 'multi', 'partial') . ' partial multi-locks, ' . $k($r, 'multi', 'multi_pairs_forbidden') . ' member overlaps',
        'fencing' => fn ($r) => $r['stale_accepted'] + $r['lost_updates_forbidden'] === 0 ? ''
            : "{$r['stale_accepted']} stale accepted, {$r['lost_updates_forbidden']} lost updates",
        'liveness' => fn ($r) => $r['slow_acquire'] + $r['slow_release'] + $r['no_ttl'] + $r['left'] + $r['stalled'] === 0 ? ''
            : "{$r['slow_acquire']} slow acquires, {$r['slow_release']} slow releases/refreshes, {$r['no_ttl']} keys without TTL, {$r['left']} keys left, {$r['stalled']} stalled",
    ];
    // a rule is checked where its primitive ran (exclusion and fencing, liveness: always)
    $ruleOf = ['rw' => 'rw', 'permits' => 'semaphore', 'multi' => 'multi'];
    foreach ($R as $t => $r) {
        foreach ($checks as $c => $fn) {
            if (isset($ruleOf[$c]) && !in_array($ruleOf[$c], $primsRun, true)) {
                continue;
            }
            $bad = $fn($r);
            $prim = $ruleOf[$c] ?? null;
            $detail = $prim === null
                ? sprintf('%d faults, %d grants, %d allowed overlaps, %d stale writes rejected', $r['faults'], $r['grants'],
                    $r['overlap_allowed'], $r['stale_rejected'])
                : sprintf('%d faults, %d %s grants, %d allowed', $r['faults'], $k($r, $prim, 'grants'), $prim,
                    $k($r, $prim, 'overlap_allowed') + $k($r, $prim, 'dirty_allowed'));
            echo 'CHECK ', $t, ' ', $c, ' ', $bad === '' ? "ok $detail" : "FAIL $bad", "\n";
        }
    }
    foreach ($faultErrors as $e) {
        echo "CHECK {$e['type']} run FAIL {$e['error']}\n";
    }
    foreach ($phaseErrors as $e) {
        echo "CHECK {$e['name']} run FAIL {$e['error']}\n";
    }
}
if (isset($opt['json'])) {
    file_put_contents($opt['json'], json_encode(['run' => $run, 'bounds' => ['acquire' => is_finite($boundAcquire) ? $boundAcquire : null, 'release' => $boundRelease],
        'rows' => $R, 'operations' => $ops, 'faults' => count($faults), 'forbidden' => $forbidden,
        'errors' => array_merge($faultErrors, $phaseErrors)], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES));
}
printf("nemesis: %d operations, %d faults, %d forbidden anomalies\n", $ops, count($faults), $forbidden);
exit($forbidden > 0 ? 1 : 0);
