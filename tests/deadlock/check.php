<?php
/*
 * tests/deadlock/check.php — the deadlock suite's checker (issue 47; see
 * tests/deadlock/run.sh). Reads the logs tests/deadlock/stress.php wrote.
 *
 * usage: php check.php DIR [--min-deadlocks=20] [--cycle-limit=2.5]   a run with detection on
 *        php check.php DIR --control                                 a run with detection off
 *        php check.php --selftest                                    fabricated histories, one breach each
 *
 * Prints "CHECK <rule> ok|FAIL <detail>" lines (run.sh counts them) and one
 * "SUMMARY ..." line. From each worker's log, per pid and name (times are
 * hrtime(true), one monotonic clock for all processes):
 *   possibly holds   [lock() call, release() return]   of a lock() that returned a lease
 *   certainly holds  [lock() return, release() call]
 *   possibly waits   [lock() call, lock() return]      of every lock()
 * Rules:
 *   reports    0 false reports: each DeadlockException's cycle, as its message
 *              names it (this process waits for A, held by pid P1, which waits
 *              for B, ..., held by this process), was possible at one instant of
 *              that lock()'s [call, return]: each named pid possibly held the
 *              name it is said to hold and possibly waited for the next, and this
 *              process possibly held the last. Exact (no margin): the check ran
 *              at one instant of the server, which is inside that window.
 *   one-victim no two processes got a DeadlockException for the same cycle: the
 *              same waits on the same leases (each member's hold, the one lease
 *              the logs allow at the instants the report was possible; a report
 *              whose leases the logs leave ambiguous is not compared).
 *   cycles     every cycle reported: at any instant, a pid inside lock(X) while
 *              another certainly holds X is a wait-for edge; a cycle of such
 *              edges is a deadlock (each member waits for what a member holds,
 *              and none can leave lock() but by its own return). Every such cycle
 *              must end with one member's lock() returning a DeadlockException
 *              (exact: no margin of time); and no lock() that ended in a plain
 *              LockTimeoutException may have spent more than --cycle-limit s on
 *              one (a deadlock waited out).
 *   exclusion  certain holds of one name by different pids are disjoint.
 *   counters   the per-name counters, read and written in the critical sections
 *              over a connection of their own: the values read for a name are
 *              0, 1, ..., n-1, each once, and the final value is n (no lost update).
 *   workers    every worker ended its loop and wrote its stats; no lock() failed
 *              otherwise than by a timeout or a deadlock; every release() said true;
 *              stats()['deadlocks'] and ['timeouts'] equal what the log counted.
 *   exercised  at least --min-deadlocks DeadlockExceptions (the run tested something).
 * --control (detection off): the cycles rule must find at least one cycle
 * waited out (so it can fail), and no DeadlockException may be thrown; the
 * exclusion, counters and workers rules hold as above.
 * --tolerate-bound-spent (run.sh gives it to both runs): a lock()
 * that ended after its whole 5 s wait in a ConnectionException because its
 * last attempt's reply came after the call's bound ("Redis at ... did not
 * answer within this call's 5.000 s bound (...) while reading the reply; the
 * connection was dropped") is listed, not failed: a waiter woken in the last
 * milliseconds of its wait attempts at once, and on a loaded machine the
 * server's answer can come after the bound, which then ends the call as the
 * API says (decision 0028: an attempt whose reply is lost is ambiguous, never
 * "not acquired"). The control's chains of 5 s waits make it common: each
 * waiter's holder times out and releases just before the waiter's own
 * deadline. (A wake-up after the deadline itself, with nothing carried, used
 * to attempt with the bound already spent, "was not asked"; it now leaves
 * through the cancel and times out, and is no longer tolerated.)
 */
declare(strict_types=1);

const NS = 1000000000;

function load_dir(string $dir): array
{
    $run = json_decode((string)@file_get_contents("$dir/run.json"), true);
    if (!is_array($run)) throw new RuntimeException("no run.json in $dir");
    $by_pid = [];
    foreach (glob("$dir/worker-*.jsonl") as $f) {
        if (!preg_match('/worker-(\d+)\.jsonl$/', $f, $m)) continue;
        $pid = (int)$m[1];
        $by_pid[$pid] = [];
        foreach (file($f, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) as $i => $line) {
            $e = json_decode($line, true);
            if (!is_array($e)) throw new RuntimeException("$f:" . ($i + 1) . ": not JSON");
            $by_pid[$pid][] = $e;
        }
    }
    return [$run, $by_pid];
}

/* The intervals of $list (sorted by start, disjoint) that meet [$a, $b], clipped to it: [start, end, unclipped start]. */
function meeting(array $list, int $a, int $b): array
{
    $lo = 0;
    $hi = count($list);
    while ($lo < $hi) {   // first interval whose end >= $a
        $mid = ($lo + $hi) >> 1;
        if ($list[$mid][1] < $a) $lo = $mid + 1; else $hi = $mid;
    }
    $out = [];
    for ($i = $lo, $n = count($list); $i < $n && $list[$i][0] <= $b; $i++) $out[] = [max($list[$i][0], $a), min($list[$i][1], $b), $list[$i][0]];
    return $out;
}

/* The unclipped starts of the intervals of $list (as meeting() returns them) that meet any interval of $when. */
function holds_meeting(array $list, array $when): array
{
    $out = [];
    foreach ($when as [$a, $b]) {
        foreach ($list as [$s, $e, $orig]) {
            if ($s <= $b && $e >= $a) $out[$orig] = $orig;
        }
    }
    return array_values($out);
}

/* Intersection of two sorted lists of disjoint closed intervals. */
function intersect(array $x, array $y): array
{
    $out = [];
    $i = $j = 0;
    while ($i < count($x) && $j < count($y)) {
        $s = max($x[$i][0], $y[$j][0]);
        $e = min($x[$i][1], $y[$j][1]);
        if ($s <= $e) $out[] = [$s, $e];
        if ($x[$i][1] < $y[$j][1]) $i++; else $j++;
    }
    return $out;
}

/*
 * Parses 'Deadlock detected: this process (pid P0) waits for "A", held by pid
 * P1 on H, which waits for "B", ..., held by this process (pid P0)' into
 * [P0, [[waiter, name, holder], ...]]: P0 waits A held by P1, P1 waits B held
 * by P2, ..., Pk waits Z held by P0. Null when it does not parse.
 */
function parse_report(string $msg): ?array
{
    if (!preg_match('/^Deadlock detected: this process \(pid (\d+)\) waits for "([^"]*)"(.*), held by this process \(pid (\d+)\)$/s', $msg, $m)) return null;
    if ($m[1] !== $m[4]) return null;
    $p0 = (int)$m[1];
    $rest = $m[3];
    if (!preg_match_all('/\G, held by pid (\d+) on .*?, which waits for "([^"]*)"/s', $rest, $mm, PREG_SET_ORDER)) return null;
    $consumed = 0;
    foreach ($mm as $x) $consumed += strlen($x[0]);
    if ($consumed !== strlen($rest)) return null;
    $edges = [];
    $waiter = $p0;
    $name = $m[2];
    foreach ($mm as $x) {
        $edges[] = [$waiter, $name, (int)$x[1]];
        $waiter = (int)$x[1];
        $name = $x[2];
    }
    $edges[] = [$waiter, $name, $p0];
    return [$p0, $edges];
}

function ms(int|float $ns): string
{
    return sprintf('%.1f ms', $ns / 1e6);
}

/*
 * The analysis of one run. $run: run.json's content; $by_pid: pid => events.
 * Returns ['checks' => [rule => [ok, detail]], 'stats' => [...]].
 */
function analyse(array $run, array $by_pid, array $o): array
{
    $limit_ns = (int)($o['cycle_limit'] * NS);
    $problems = ['workers' => [], 'reports' => [], 'one-victim' => [], 'cycles' => [], 'exclusion' => [], 'counters' => []];
    $ph = $pw = [];          // pid => name => [[s, e], ...] possibly holds / possibly waits
    $certain = [];           // name => [[s, e, pid], ...]
    $lockops = [];           // [pid, name, call, ret, out, msg, holds]
    $reads = [];             // name => [values read]
    $grants = $timeouts = $deadlocks = 0;
    $max_wait = 0;           // the longest lock() that returned a lease
    $max_report = 0;         // the longest lock() that ended in a DeadlockException
    $last_t = 0;
    $tolerated = [];         // --tolerate-bound-spent: the errors let through (listed)
    foreach ($run['workers'] ?? [] as $pid => $st) {
        if ($st !== 0) $problems['workers'][] = "worker $pid exited " . var_export($st, true);
        if (!isset($by_pid[$pid])) $problems['workers'][] = "worker $pid wrote no log";
    }
    foreach ($by_pid as $pid => $events) {
        $open = [];          // name => the lock op that granted it
        $ended = false;
        $n_dl = $n_to = 0;
        foreach ($events as $e) {
            switch ($e['ev']) {
                case 'lock':
                    $lockops[] = [$pid, $e['name'], $e['call'], $e['ret'], $e['out'], $e['msg'] ?? null, $e['holds'] ?? []];
                    $pw[$pid][$e['name']][] = [$e['call'], $e['ret']];
                    $last_t = max($last_t, $e['ret']);
                    if ($e['ret'] < $e['call']) $problems['workers'][] = "pid $pid: a lock() returned before its call";
                    if ($e['out'] === 'ok') {
                        $grants++;
                        $max_wait = max($max_wait, $e['ret'] - $e['call']);
                        if (isset($open[$e['name']])) $problems['workers'][] = "pid $pid: lock(\"{$e['name']}\") granted while it held it";
                        $open[$e['name']] = $e;
                    } elseif ($e['out'] === 'deadlock') {
                        $deadlocks++;
                        $n_dl++;
                        $max_report = max($max_report, $e['ret'] - $e['call']);
                    } elseif ($e['out'] === 'timeout') {
                        $timeouts++;
                        $n_to++;
                    } elseif (!empty($o['tolerate_bound_spent']) && $e['ret'] - $e['call'] >= 5 * NS &&
                              preg_match('/^DistLock\\\\ConnectionException: Redis at \S+ did not answer within this call\'s [0-9.]+ s bound .* while reading the reply; the connection was dropped$/', $e['msg'] ?? '')) {
                        $tolerated[] = "pid $pid: lock(\"{$e['name']}\") ended after " . ms($e['ret'] - $e['call']) . " in {$e['msg']}";
                    } else {
                        $problems['workers'][] = "pid $pid: lock(\"{$e['name']}\") failed: " . ($e['msg'] ?? $e['out']);
                    }
                    break;
                case 'release':
                    $l = $open[$e['name']] ?? null;
                    if (!$l) {
                        $problems['workers'][] = "pid $pid: release of \"{$e['name']}\", not held";
                        break;
                    }
                    unset($open[$e['name']]);
                    if (!$e['ok']) $problems['workers'][] = "pid $pid: release(\"{$e['name']}\") said false" . (isset($e['msg']) ? ": {$e['msg']}" : '') . " (the lease was lost: held " . ms($e['call'] - $l['ret']) . ')';
                    $ph[$pid][$e['name']][] = [$l['call'], $e['ret']];
                    $certain[$e['name']][] = [$l['ret'], $e['call'], $pid];
                    $last_t = max($last_t, $e['ret']);
                    break;
                case 'cs':
                    foreach ($e['read'] as $n => $v) {
                        $reads[$n][] = $v;
                        if (!isset($open[$n])) $problems['workers'][] = "pid $pid: a critical section on \"$n\" without its lease";
                    }
                    break;
                case 'end':
                    $ended = true;
                    $s = $e['stats'];
                    if (($s['deadlocks'] ?? null) !== $n_dl) $problems['workers'][] = "pid $pid: stats()['deadlocks'] = " . var_export($s['deadlocks'] ?? null, true) . ", the log counted $n_dl";
                    if (($s['timeouts'] ?? null) !== $n_to) $problems['workers'][] = "pid $pid: stats()['timeouts'] = " . var_export($s['timeouts'] ?? null, true) . ", the log counted $n_to";
                    break;
            }
        }
        if (!$ended) $problems['workers'][] = "pid $pid: its log has no end (the worker died)";
        foreach ($open as $n => $l) {   // never released: held (possibly, certainly) to the end of the log
            $problems['workers'][] = "pid $pid: \"$n\" never released";
            $ph[$pid][$n][] = [$l['call'], PHP_INT_MAX];
            $certain[$n][] = [$l['ret'], PHP_INT_MAX, $pid];
        }
    }
    foreach ($ph as &$byname) foreach ($byname as &$list) usort($list, fn($a, $b) => $a[0] <=> $b[0]);
    unset($byname, $list);
    foreach ($pw as &$byname) foreach ($byname as &$list) usort($list, fn($a, $b) => $a[0] <=> $b[0]);
    unset($byname, $list);

    // --- reports: each DeadlockException's cycle possible at one instant of its window
    $victims = [];   // cycle key => [[call, ret, pid], ...]
    $cycle_lens = [];
    foreach ($lockops as [$pid, $name, $call, $ret, $out, $msg, $holds]) {
        if ($out !== 'deadlock') continue;
        $p = parse_report((string)$msg);
        $why = null;
        if ($p === null) {
            $why = 'the message does not parse';
        } elseif ($p[0] !== $pid) {
            $why = "it names pid {$p[0]} as this process";
        } elseif ($p[1][0][1] !== $name) {
            $why = "it says this process waits for \"{$p[1][0][1]}\"";
        } else {
            $edges = $p[1];
            $cycle_lens[count($edges)] = ($cycle_lens[count($edges)] ?? 0) + 1;
            $when = [[$call, $ret]];
            $k = count($edges);
            for ($i = 0; $i < $k && $when; $i++) {
                [$waiter, $wname, $holder] = $edges[$i];
                // $holder possibly holds $wname ...
                $when = intersect($when, meeting($ph[$holder][$wname] ?? [], $call, $ret));
                if (!$when) {
                    $why = "pid $holder never possibly held \"$wname\" then (at the same instant as the waits before it)";
                    break;
                }
                // ... and, unless it is this process, possibly waits for the next name
                if ($holder !== $pid) {
                    $next = $edges[$i + 1][1];
                    $when = intersect($when, meeting($pw[$holder][$next] ?? [], $call, $ret));
                    if (!$when) $why = "pid $holder did not possibly wait for \"$next\" while possibly holding \"$wname\"";
                }
            }
            if ($why === null) {
                // The cycle's instance: the lease each member held (its possible hold's start), when that is unique.
                $inst = [];
                foreach ($edges as [, $wname, $holder]) {
                    $starts = holds_meeting(meeting($ph[$holder][$wname] ?? [], $call, $ret), $when);
                    if (count($starts) !== 1) { $inst = null; break; }
                    $inst[] = "$holder:$wname:$starts[0]";
                }
                if ($inst !== null) {
                    sort($inst);
                    $victims[implode(' ', $inst)][] = $pid;
                }
            }
        }
        if ($why !== null) $problems['reports'][] = "pid $pid, lock(\"$name\") [" . ms($ret - $call) . "]: $why: $msg";
    }
    foreach ($victims as $key => $pids) {
        if (count($pids) > 1) $problems['one-victim'][] = 'pids ' . implode(' and ', $pids) . " each got a DeadlockException for the same cycle (the same leases: $key)";
    }

    // --- exclusion
    foreach ($certain as $n => $list) {
        usort($list, fn($a, $b) => $a[0] <=> $b[0]);
        $end = PHP_INT_MIN;
        $who = null;
        foreach ($list as [$s, $e, $pid]) {
            if ($who !== null && $s <= $end && $pid !== $who) {
                $problems['exclusion'][] = "\"$n\": pid $pid certainly held it from $s while pid $who did until $end (" . ms($end - $s) . ' overlap)';
            }
            if ($e > $end) { $end = $e; $who = $pid; }
        }
    }

    // --- counters
    foreach ($run['counters'] ?? [] as $n => $final) {
        $r = $reads[$n] ?? [];
        sort($r);
        $cnt = count($r);
        $bad = [];
        foreach ($r as $i => $v) if ($v !== $i) { $bad[] = $v; if (count($bad) >= 5) break; }
        if ($bad) $problems['counters'][] = "\"$n\": the values read are not 0..$cnt-1, each once (a lost update): first odd ones " . implode(', ', $bad);
        if ($final !== $cnt) $problems['counters'][] = "\"$n\": the counter ends at $final after $cnt critical sections";
    }

    // --- cycles: a sweep over every change of the certain wait-for graph
    $ev = [];   // [t, order, kind, pid, name, op index]
    foreach ($lockops as $idx => [$pid, $name, $call, $ret, $out]) {
        $ev[] = [$call, 1, 'wait', $pid, $name, $idx];
        $ev[] = [$ret, 0, 'unwait', $pid, $name, $idx];
    }
    foreach ($certain as $n => $list) {
        foreach ($list as [$s, $e, $pid]) {
            $ev[] = [$s, 1, 'hold', $pid, $n, -1];
            if ($e !== PHP_INT_MAX) $ev[] = [$e, 0, 'unhold', $pid, $n, -1];
        }
    }
    usort($ev, fn($a, $b) => $a[0] <=> $b[0] ?: $a[1] <=> $b[1]);
    $holder = [];        // name => [pid => true]
    $waiting = [];       // pid => [name, op index]
    $in_cycle = [];      // op index => ns spent on a cycle
    $open_cycles = [];   // key => [start, the members' lock() ops]
    $cycles_seen = 0;
    $longest = 0;
    $longest_key = '';
    $missed = [];
    $unreported = 0;
    $prev_t = null;
    $members = [];       // pids on a cycle in the current state
    $nev = count($ev);
    for ($i = 0; $i < $nev; $i++) {
        $t = $ev[$i][0];
        if ($prev_t !== null && $t > $prev_t && $members) {
            foreach ($members as $pid) $in_cycle[$waiting[$pid][1]] = ($in_cycle[$waiting[$pid][1]] ?? 0) + ($t - $prev_t);
        }
        $prev_t = $t;
        [, , $kind, $pid, $name, $idx] = $ev[$i];
        switch ($kind) {
            case 'wait': $waiting[$pid] = [$name, $idx]; break;
            case 'unwait': unset($waiting[$pid]); break;
            case 'hold': $holder[$name][$pid] = true; break;
            case 'unhold': unset($holder[$name][$pid]); break;
        }
        if ($i + 1 < $nev && $ev[$i + 1][0] === $t) continue;   // state at t: after every event at t
        // the cycles now: each waiting pid's edges go to the pids certainly holding what it waits for
        $now = [];
        $members = [];
        foreach ($waiting as $start => $_) {
            // follow edges from $start (first certain holder: with exclusion there is one)
            $path = [$start];
            $pos = [$start => 0];
            $cur = $start;
            while (isset($waiting[$cur])) {
                $hs = array_keys($holder[$waiting[$cur][0]] ?? []);
                $hs = array_values(array_filter($hs, fn($h) => $h !== $cur));
                if (!$hs) break;
                $cur = $hs[0];
                if (isset($pos[$cur])) {
                    $cyc = array_slice($path, $pos[$cur]);
                    if (in_array($start, $cyc, true)) {
                        $parts = array_map(fn($p) => "$p>" . $waiting[$p][0], $cyc);
                        sort($parts);
                        $now[implode(' ', $parts)] = $cyc;
                    }
                    break;
                }
                $pos[$cur] = count($path);
                $path[] = $cur;
            }
        }
        foreach ($now as $key => $cyc) foreach ($cyc as $p) $members[$p] = $p;
        foreach ($open_cycles as $key => [$since, $ops]) {
            if (isset($now[$key])) continue;
            $d = $t - $since;
            if ($d > $longest) { $longest = $d; $longest_key = $key; }
            // What ended it: a member's lock() returning at t (nothing else can: each member is inside lock()).
            $how = [];
            foreach ($ops as $op) if ($lockops[$op][3] === $t) $how[] = $lockops[$op][4] . ' (pid ' . $lockops[$op][0] . ')';
            $reported = false;
            foreach ($ops as $op) if ($lockops[$op][3] === $t && $lockops[$op][4] === 'deadlock') $reported = true;
            if (!$reported) {
                $unreported++;
                $missed[] = "the cycle $key (pid>name waited for) lasted " . ms($d) . " and ended unreported, by " . ($how ? implode(', ', $how) : 'no member\'s return') . " (from t=$since)";
            }
            unset($open_cycles[$key]);
        }
        foreach ($now as $key => $cyc) {
            if (!isset($open_cycles[$key])) {
                $open_cycles[$key] = [$t, array_map(fn($p) => $waiting[$p][1], $cyc)];
                $cycles_seen++;
            }
        }
    }
    foreach ($open_cycles as $key => [$since]) {
        $d = $last_t - $since;
        if ($d > $longest) { $longest = $d; $longest_key = $key; }
        $unreported++;
        $missed[] = "the cycle $key (pid>name waited for) lasted " . ms($d) . " to the end of the logs, unreported";
    }
    $waited_out = 0;
    foreach ($lockops as $idx => [$pid, $name, $call, $ret, $out]) {
        if ($out === 'timeout' && ($in_cycle[$idx] ?? 0) > $limit_ns) {
            $waited_out++;
            $missed[] = "pid $pid, lock(\"$name\") ended in a plain LockTimeoutException after " . ms($ret - $call) . ', ' . ms($in_cycle[$idx]) . ' of it on a cycle of certain waits';
        }
    }
    $problems['cycles'] = $missed;

    $dur = (($run['end'] ?? 0) - ($run['start'] ?? 0)) / NS;
    return [
        'problems' => $problems,
        'tolerated' => $tolerated,
        'stats' => [
            'deadlocks' => $deadlocks, 'grants' => $grants, 'timeouts' => $timeouts, 'max_wait' => $max_wait,
            'max_report' => $max_report, 'cycles_seen' => $cycles_seen, 'longest' => $longest, 'longest_key' => $longest_key,
            'waited_out' => $waited_out, 'unreported' => $unreported, 'missed' => count($missed), 'cycle_lens' => $cycle_lens, 'workers' => count($by_pid),
            'cs' => array_sum(array_map('count', $reads)) / 2, 'seconds' => $dur,
        ],
    ];
}

function check(string $rule, bool $ok, string $detail): bool
{
    echo "CHECK $rule ", $ok ? 'ok' : 'FAIL', " $detail\n";
    return $ok;
}

/* Prints a rule's verdict with up to 10 of its problems (before it, for the log). */
function verdict(string $rule, array $problems, string $okdetail): bool
{
    foreach (array_slice($problems, 0, 10) as $p) echo "  $rule: $p\n";
    if (count($problems) > 10) echo "  $rule: ... and " . (count($problems) - 10) . " more\n";
    return check($rule, !$problems, $problems ? count($problems) . ' problem(s): ' . $problems[0] : $okdetail);
}

function selftest(): int
{
    // Fabricated histories (times in ms, scaled to ns), each breaking one rule.
    $m = fn(int|float $x) => (int)($x * 1000000);
    $end = fn() => ['ev' => 'end', 'stats' => ['deadlocks' => 0, 'timeouts' => 0]];
    $lock = fn($n, $c, $r, $out = 'ok', $msg = null, $holds = []) => ['ev' => 'lock', 'name' => $n, 'call' => $m($c), 'ret' => $m($r), 'out' => $out, 'msg' => $msg, 'holds' => $holds];
    $rel = fn($n, $c, $r) => ['ev' => 'release', 'name' => $n, 'call' => $m($c), 'ret' => $m($r), 'ok' => true];
    $cs = fn(array $read) => ['ev' => 'cs', 'names' => array_keys($read), 'read' => $read, 't0' => 0, 't1' => 0];
    $msg = fn($self, $a, $holder, $b) => "Deadlock detected: this process (pid $self) waits for \"$a\", held by pid $holder on h, which waits for \"$b\", held by this process (pid $self)";
    $run = fn(array $counters) => ['workers' => [1 => 0, 2 => 0], 'counters' => $counters, 'start' => 0, 'end' => $m(10000)];
    $dlend = fn($d, $t) => ['ev' => 'end', 'stats' => ['deadlocks' => $d, 'timeouts' => $t]];

    // A true 2-cycle, reported once: 1 holds a, waits b; 2 holds b, waits a and is the victim.
    $good = [
        1 => [$lock('a', 0, 1), $lock('b', 2, 20, 'ok', null, ['a']), $cs(['a' => 1, 'b' => 0]), $rel('a', 21, 22), $rel('b', 22, 23), $end()],
        2 => [$lock('b', 0.5, 1.5), $lock('a', 5, 6, 'deadlock', $msg(2, 'a', 1, 'b'), ['b']), $rel('b', 7, 8), $lock('a', 30, 31), $lock('b', 31, 32), $cs(['a' => 0, 'b' => 1]), $rel('a', 33, 34), $rel('b', 34, 35), $dlend(1, 0)],
    ];
    $cases = [
        'none' => [$good, [], ['a' => 2, 'b' => 2]],
        // the report names pid 1 as waiting for "b", but 1 waited for nothing then
        'reports' => [[
            1 => [$lock('a', 0, 1), $rel('a', 21, 22), $end()],
            2 => [$lock('b', 0.5, 1.5), $lock('a', 5, 6, 'deadlock', $msg(2, 'a', 1, 'b'), ['b']), $rel('b', 7, 8), $dlend(1, 0)],
        ], [], []],
        // both got a DeadlockException for the same cycle
        'one-victim' => [[
            1 => [$lock('a', 0, 1), $lock('b', 2, 6, 'deadlock', $msg(1, 'b', 2, 'a'), ['a']), $rel('a', 7, 8), $dlend(1, 0)],
            2 => [$lock('b', 0.5, 1.5), $lock('a', 3, 5, 'deadlock', $msg(2, 'a', 1, 'b'), ['b']), $rel('b', 7, 8), $dlend(1, 0)],
        ], [], []],
        // 2 took "a" while 1 certainly held it
        'exclusion' => [[
            1 => [$lock('a', 0, 1), $rel('a', 10, 11), $end()],
            2 => [$lock('a', 2, 3), $rel('a', 12, 13), $end()],
        ], [], []],
        // two critical sections read the same value (and the counter lost one)
        'counters' => [[
            1 => [$lock('a', 0, 1), $cs(['a' => 0]), $rel('a', 10, 11), $end()],
            2 => [$lock('a', 12, 13), $cs(['a' => 0]), $rel('a', 14, 15), $end()],
        ], [], ['a' => 1]],
        // a 2-cycle waited out: both time out after 5 s of it
        'cycles' => [[
            1 => [$lock('a', 0, 1), $lock('b', 2, 5002, 'timeout', 'timed out', ['a']), $rel('a', 5003, 5004), $dlend(0, 1)],
            2 => [$lock('b', 0.5, 1.5), $lock('a', 3, 5003, 'timeout', 'timed out', ['b']), $rel('b', 5004, 5005), $dlend(0, 1)],
        ], [], []],
        // a worker whose stats disagree with its log, and a release that said false
        'workers' => [[
            1 => [$lock('a', 0, 1), ['ev' => 'release', 'name' => 'a', 'call' => $m(2), 'ret' => $m(3), 'ok' => false], $dlend(1, 0)],
            2 => [$end()],
        ], [], []],
    ];
    $fails = 0;
    foreach ($cases as $breach => [$by_pid, , $counters]) {
        $r = analyse($run($counters), $by_pid, ['cycle_limit' => 2.5]);
        $failed = array_keys(array_filter($r['problems']));
        if ($breach === 'none') {
            $ok = !$failed;
            echo ($ok ? 'ok' : 'not ok'), " - a clean history passes every rule", $ok ? '' : ' (failed: ' . implode(', ', $failed) . ')', "\n";
        } else {
            $ok = $failed === [$breach];
            echo ($ok ? 'ok' : 'not ok'), " - a fabricated breach of \"$breach\" fails it, and only it (failed: " . (implode(', ', $failed) ?: 'none') . ")\n";
            foreach ($r['problems'][$breach] as $p) fwrite(STDERR, "  $breach: $p\n");
        }
        if (!$ok) $fails++;
    }
    return $fails ? 1 : 0;
}

// ---------------------------------------------------------------------------
$args = array_slice($argv, 1);
if (in_array('--selftest', $args, true)) exit(selftest());
$dir = null;
$o = ['cycle_limit' => 2.5, 'min_deadlocks' => 20, 'control' => false];
foreach ($args as $a) {
    if (preg_match('/^--min-deadlocks=(\d+)$/', $a, $m)) $o['min_deadlocks'] = (int)$m[1];
    elseif (preg_match('/^--cycle-limit=([0-9.]+)$/', $a, $m)) $o['cycle_limit'] = (float)$m[1];
    elseif ($a === '--control') $o['control'] = true;
    elseif ($a === '--tolerate-bound-spent') $o['tolerate_bound_spent'] = true;
    elseif ($a[0] !== '-') $dir = $a;
    else { fwrite(STDERR, "check.php: unknown option $a\n"); exit(2); }
}
if ($dir === null) { fwrite(STDERR, "usage: check.php DIR [--min-deadlocks=N] [--cycle-limit=S] [--control] | --selftest\n"); exit(2); }
try {
    [$run, $by_pid] = load_dir($dir);
} catch (Throwable $e) {
    check('logs', false, $e->getMessage());
    exit(1);
}
$t0 = hrtime(true);
$r = analyse($run, $by_pid, $o);
$p = $r['problems'];
$s = $r['stats'];
$lens = $s['cycle_lens'];
ksort($lens);
$lens_txt = implode(', ', array_map(fn($k, $v) => "$v of $k", array_keys($lens), $lens)) ?: 'none';
foreach ($r['tolerated'] as $x) echo "  tolerated (--tolerate-bound-spent): $x\n";
$ok = true;
$ok &= verdict('workers', $p['workers'], "{$s['workers']} workers ended, their stats agree with their logs");
$ok &= verdict('exclusion', $p['exclusion'], "certain holds of each name disjoint over {$s['grants']} grants");
$ok &= verdict('counters', $p['counters'], "no lost update over {$s['cs']} critical sections");
if ($o['control']) {
    $ok &= check('control-no-reports', $s['deadlocks'] === 0, "{$s['deadlocks']} DeadlockException(s) with deadlock_detection off");
    foreach (array_slice($p['cycles'], 0, 3) as $x) echo "  cycles (expected here): $x\n";
    $ok &= check('control-cycles-caught', $s['unreported'] > 0 && $s['waited_out'] > 0, "detection off: the cycles rule found {$s['unreported']} cycle(s) unreported and {$s['waited_out']} timeout(s) that waited one out (longest " . ms($s['longest']) . ", {$s['timeouts']} timeouts)");
} else {
    $ok &= verdict('reports', $p['reports'], "all {$s['deadlocks']} reports name a cycle the logs allow at one instant of their call (cycle lengths: $lens_txt)");
    $ok &= verdict('one-victim', $p['one-victim'], "one victim per cycle");
    $ok &= verdict('cycles', $p['cycles'], "every cycle reported: {$s['cycles_seen']} cycles of certain waits, each ended by a member's DeadlockException, the longest " . ms($s['longest']) . "; no timeout spent over {$o['cycle_limit']} s on one");
    $ok &= check('exercised', $s['deadlocks'] >= $o['min_deadlocks'], "{$s['deadlocks']} deadlocks reported (at least {$o['min_deadlocks']} wanted)");
}
printf("SUMMARY %d deadlocks reported, %d grants, %d timeouts, %d critical sections in %.1f s; max wait (granted) %s, max report %s, longest cycle of certain waits %s%s (checked in %.1f s)\n",
    $s['deadlocks'], $s['grants'], $s['timeouts'], $s['cs'], $s['seconds'], ms($s['max_wait']), ms($s['max_report']), ms($s['longest']),
    $s['longest_key'] !== '' ? " ({$s['longest_key']})" : '', (hrtime(true) - $t0) / 1e9);
exit($ok ? 0 : 1);
