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
 * exclusion   two grants of one name whose intervals (acquire returned ->
 *             release called; a killed worker's ends at its death) overlap;
 *             "allowed" under the faults that the documentation says break
 *             mutual exclusion (ALLOWED below), "forbidden" elsewhere.
 * fencing     stale accepted: an access accepted by the resource with a token
 *             lower than one it had already accepted for that name (along the
 *             resource's own sequence), or an equal token of another grant:
 *             forbidden everywhere. Stale rejected: the resource refused a
 *             stale token (fencing doing its job). Lost updates: a write based
 *             on a value someone else had changed: forbidden with fencing
 *             tokens; without them (the peers, Redlock) they follow the
 *             overlap's classification (allowed under an ALLOWED fault).
 * liveness    an acquire longer than wait + 2 x timeout + margin, a release or
 *             refresh longer than 2 x timeout + margin (ops of a worker while
 *             SIGSTOPped are left out); a lock key without a TTL; a key left
 *             one lease after the workload stopped; a fault after which no
 *             grant succeeded within its window ("stalled"). Forbidden.
 * signals     grants that lost their lease (overtaken by a later grant of
 *             the same name while still holding), split into those
 *             the library told (release() or refresh() said "not ours")
 *             and those it did not. Reported, not judged.
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
            $phases[$e['phase']] = ['name' => $e['name'], 's' => $e['s'], 'e' => null, 'stop' => null];
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
    if (str_starts_with($f['type'], 'client-kill')) {
        $deaths[$f['target']['worker']] = $f['s'];
    }
    if ($f['type'] === 'client-pause') {
        $pauses[$f['target']['worker']][] = [$f['s'], $f['e']];
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
$slow = [];       // list of [type, op, duration, worker]
$lostSignalsLib = 0;
$maxAcquire = [];
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
            $grants[$g] = ['p' => $h['p'], 'phase' => $phase, 'n' => $h['n'], 's' => $h['e'], 'e' => null, 'f' => $h['f'] ?? null,
                           'told' => false, 'stale' => false, 'overtaken' => null];
        }
        if (($op === 'release' || $op === 'refresh') && $h['r'] === 'lost' && isset($grants[$g])) {
            $grants[$g]['told'] = true;
        }
        if ($op === 'release' && isset($grants[$g])) {
            $grants[$g]['e'] = $h['s'];
        }
        if (($op === 'read' || $op === 'write') && isset($grants[$g])) {
            if ($h['r'] === 'stale') {
                $grants[$g]['stale'] = true;
                $grants[$g]['stale_ops'][] = $h['s'];
            } else {
                $accesses[$phase . ':' . $h['n']][] = ['q' => (int) $h['q'], 'f' => $h['f'] ?? null, 'g' => $g, 't' => $h['s']];
            }
            if ($op === 'write' && $h['r'] === 'lost') {
                $grants[$g]['lost_update'] = $h['s'];
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
            if (!$paused && $op === 'acquire') {
                $maxAcquire[$type] = max($maxAcquire[$type] ?? 0, $d);
            }
            $bound = $op === 'acquire' ? $boundAcquire : $boundRelease;
            if (!$paused && $d > $bound) {
                $slow[] = ['type' => $type, 'op' => $op, 'd' => round($d, 2), 'p' => $h['p'], 'r' => $h['r'], 'x' => $h['x'] ?? null];
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
$row = fn () => ['faults' => 0, 'grants' => 0, 'overlap_allowed' => 0, 'overlap_forbidden' => 0, 'stale_accepted' => 0,
    'stale_rejected' => 0, 'lost_updates' => 0, 'lost_updates_forbidden' => 0, 'slow_acquire' => 0, 'slow_release' => 0,
    'max_acquire_s' => 0.0, 'no_ttl' => 0, 'left' => 0, 'stalled' => 0, 'lost_told' => 0, 'lost_untold' => 0];
$R = [];
foreach ($types as $t) {
    $R[$t] = $row();
}
foreach ($faults as $f) {
    $R[$f['type']]['faults']++;
}
$examples = [];

// exclusion: overlapping intervals per phase and name
$byName = [];
foreach ($grants as $g => $gr) {
    $byName[$gr['phase'] . ':' . $gr['n']][] = $g;
    $R[$attribute($gr['phase'], $gr['s'])]['grants']++;
}
foreach ($byName as $key => $list) {
    usort($list, fn ($a, $b) => $grants[$a]['s'] <=> $grants[$b]['s']);
    $active = [];
    foreach ($list as $g) {
        $gr = $grants[$g];
        $active = array_values(array_filter($active, fn ($a) => $grants[$a]['e'] > $gr['s']));
        foreach ($active as $a) {
            $type = $attribute($gr['phase'], $gr['s']);
            $allowed = isset(ALLOWED[$type]);
            $R[$type][$allowed ? 'overlap_allowed' : 'overlap_forbidden']++;
            $grants[$a]['overtaken'] ??= $gr['s'];
            if (!$allowed && count($examples) < 20) {
                $examples[] = sprintf('forbidden overlap (%s) on %s: grant %s [%.3f, %.3f] and %s from %.3f', $type, $key, $a,
                    $grants[$a]['s'] / $NS, $grants[$a]['e'] / $NS, $g, $gr['s'] / $NS);
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
            $R[$type]['stale_accepted']++;
            if (count($examples) < 20) {
                $examples[] = "stale token accepted ($type) on $key: {$a['f']} of {$a['g']} after $maxF of $maxG";
            }
        }
        if ($maxF === null || $a['f'] > $maxF) {
            $maxF = $a['f'];
            $maxG = $a['g'];
        }
    }
}
foreach ($grants as $g => $gr) {
    foreach ($gr['stale_ops'] ?? [] as $t) {
        $R[$attribute($gr['phase'], $t)]['stale_rejected']++;
    }
    if (isset($gr['lost_update'])) {
        $type = $attribute($gr['phase'], $gr['lost_update']);
        $R[$type]['lost_updates']++;
        if ($fenced || !isset(ALLOWED[$type])) {
            $R[$type]['lost_updates_forbidden']++;
            if (count($examples) < 20) {
                $examples[] = "lost update ($type) by grant $g on {$gr['n']}";
            }
        }
    }
    if ($gr['overtaken'] !== null) {
        $R[$attribute($gr['phase'], $gr['overtaken'])][$gr['told'] ? 'lost_told' : 'lost_untold']++;
    }
}

// liveness
foreach ($slow as $s) {
    $R[$s['type']][$s['op'] === 'acquire' ? 'slow_acquire' : 'slow_release']++;
    if (count($examples) < 20) {
        $examples[] = "slow {$s['op']} ({$s['type']}): {$s['d']} s by worker {$s['p']}, result {$s['r']}" . ($s['x'] ? " ({$s['x']})" : '');
    }
}
foreach ($maxAcquire as $t => $d) {
    $R[$t]['max_acquire_s'] = round($d, 2);
}
foreach ($nottl as $e) {
    $R[$attribute($e['phase'], $e['t'])]['no_ttl']++;
    if (count($examples) < 20) {
        $examples[] = "key without TTL: {$e['key']} on port {$e['port']}";
    }
}
foreach ($leftover as $e) {
    $R['none']['left']++;
    if (count($examples) < 20) {
        $examples[] = "key left after the run: {$e['key']} (pttl {$e['pttl']}) on port {$e['port']}";
    }
}
foreach ($faults as $f) {
    $ok = false;
    foreach ($grants as $gr) {
        if ($gr['phase'] === $f['phase'] && $gr['s'] >= $f['e'] && $gr['s'] <= $f['wend']) {
            $ok = true;
            break;
        }
    }
    if (!$ok) {
        $R[$f['type']]['stalled']++;
        $examples[] = "stalled: no grant within {$tail} s after {$f['type']} (phase {$f['phase']})";
    }
}

// ---- verdicts ---------------------------------------------------------------------
$forbiddenOf = fn (array $r): int => $r['overlap_forbidden'] + $r['stale_accepted'] + $r['lost_updates_forbidden']
    + $r['slow_acquire'] + $r['slow_release'] + $r['no_ttl'] + $r['left'] + $r['stalled'];
$forbidden = 0;
foreach ($R as $r) {
    $forbidden += $forbiddenOf($r);
}
$forbidden += count($faultErrors) + count($phaseErrors);

printf("lib %s, seed %d, %d workers, lease %.1f s, wait %s s, timeout %.1f s; bounds: acquire %.1f s, release/refresh %.1f s (margin %.1f s)\n",
    $run['lib'], $run['seed'], $run['workers'], $lease, is_finite($wait) ? (string) $wait : 'none', $timeout,
    $boundAcquire, $boundRelease, $margin);
$cols = ['faults', 'grants', 'overlap_allowed', 'overlap_forbidden', 'stale_accepted', 'stale_rejected', 'lost_updates',
    'slow_acquire', 'slow_release', 'max_acquire_s', 'no_ttl', 'left', 'stalled', 'lost_told', 'lost_untold'];
$short = ['faults', 'grants', 'ovl ok', 'ovl BAD', 'stale acc', 'stale rej', 'lost upd', 'slow acq', 'slow rel', 'max acq s',
    'no TTL', 'left', 'stalled', 'lost told', 'lost untold'];
printf("%-26s%s\n", 'fault', implode('', array_map(fn ($c) => sprintf('%10s', $c), $short)));
foreach ($R as $t => $r) {
    printf("%-26s%s\n", $t . (isset(ALLOWED[$t]) ? ' *' : ''), implode('', array_map(fn ($c) => sprintf('%10s', $r[$c]), $cols)));
}
echo "  * overlapping holders documented under this fault (docs/guarantees.md); every other overlap is forbidden\n";
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
    $checks = [
        'exclusion' => fn ($r) => $r['overlap_forbidden'] === 0 ? '' : "{$r['overlap_forbidden']} forbidden overlaps",
        'fencing' => fn ($r) => $r['stale_accepted'] + $r['lost_updates_forbidden'] === 0 ? ''
            : "{$r['stale_accepted']} stale accepted, {$r['lost_updates_forbidden']} lost updates",
        'liveness' => fn ($r) => $r['slow_acquire'] + $r['slow_release'] + $r['no_ttl'] + $r['left'] + $r['stalled'] === 0 ? ''
            : "{$r['slow_acquire']} slow acquires, {$r['slow_release']} slow releases/refreshes, {$r['no_ttl']} keys without TTL, {$r['left']} keys left, {$r['stalled']} stalled",
    ];
    foreach ($R as $t => $r) {
        foreach ($checks as $c => $fn) {
            $bad = $fn($r);
            $detail = sprintf('%d faults, %d grants, %d allowed overlaps, %d stale writes rejected', $r['faults'], $r['grants'],
                $r['overlap_allowed'], $r['stale_rejected']);
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
