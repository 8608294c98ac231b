<?php
/*
 * One workload process of the fault campaign (started by campaign.php):
 *
 *   php [-d extension=distlock.so] worker.php CONFIG.json WORKER_ID
 *
 * Loops until SIGTERM: draws a primitive (PRIMITIVES' weights, among those
 * the phase runs and the library has) and what it asks for, acquires with the
 * library's own blocking API, works under it, releases:
 *  - mutex (names[]): read-modify-write of the name's resource (read, sleep
 *    5-30 ms, write value + 1, both with the grant's fencing token when there
 *    is one);
 *  - multi (2-3 of multi_names[], which overlap names[]: one kind, one key per
 *    name): the same on every member, each with its own fencing token;
 *  - rw (rw_names[]): one cycle in three a writer (exclusive lease: the mutex's
 *    read-modify-write, fenced), else a reader (shared lease: reads the value
 *    twice, 5-30 ms apart; a change between them is a write beside it);
 *  - semaphore (sem[]: [name, limit]): 1 permit, or 2 in one cycle in three
 *    where the library allows several; sleeps 5-30 ms (the checker counts the
 *    permits held at once against the limit).
 * Every operation is one JSON line appended to its own history file (written
 * at once: a SIGKILL loses nothing but the operation in flight):
 *   p worker id, pid, n name, op acquire|read|reread|write|refresh|release,
 *   s/e hrtime ns (CLOCK_MONOTONIC, one clock for every process), r result,
 *   g grant id, k kind (mutex|multi|shared|exclusive|permits), tok owner
 *   token, f fencing token; a multi-lock's acquire: ns the names asked, hs the
 *   names of the handles returned, fs name => fencing token; permits: lim the
 *   limit, pm the permits taken; x/m exception class and message.
 * A state file says whether the worker holds a lease now ("H kind names"),
 * waits for one ("W kind names") or neither ("-"): the nemesis reads it to
 * stop or kill a holder or a waiter of each kind.
 */
declare(strict_types=1);

namespace Nemesis;

require __DIR__ . '/lib/Libs.php';
require __DIR__ . '/lib/Resource.php';

error_reporting(E_ALL & ~E_DEPRECATED & ~E_USER_DEPRECATED);
set_error_handler(function (int $no, string $str, string $file, int $line): bool {
    if (!(error_reporting() & $no)) {
        return false;
    }
    throw new \ErrorException($str, 0, $no, $file, $line);
});

$cfg = json_decode((string) file_get_contents($argv[1]), true, 512, JSON_THROW_ON_ERROR);
$id = (string) $argv[2];
$stop = false;
pcntl_async_signals(true);
pcntl_signal(SIGTERM, function () use (&$stop) { $stop = true; });
mt_srand((int) $cfg['seed'] * 1000 + crc32($id));

$hist = fopen($cfg['dir'] . "/history-$id.jsonl", 'a');
$stateFile = $cfg['dir'] . "/state-$id";
$pid = getmypid();

$rec = function (array $ev) use ($hist, $id, $pid): void {
    fwrite($hist, json_encode(['p' => $id, 'pid' => $pid] + $ev, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE) . "\n");
};
$exc = fn (\Throwable $e): array => ['x' => get_class($e), 'm' => substr($e->getMessage(), 0, 200)]
    + ($e->getPrevious() ? ['why' => substr(get_class($e->getPrevious()) . ': ' . $e->getPrevious()->getMessage(), 0, 200)] : []);
$state = function (string $s) use ($stateFile): void { @file_put_contents($stateFile, $s); };
$state('-');

$lib = null;
while ($lib === null && !$stop) {
    $t = hrtime(true);
    try {
        $lib = make_lib($cfg['lib'], $cfg['topo']);
    } catch (\Throwable $e) {
        $rec(['op' => 'start', 's' => $t, 'e' => hrtime(true), 'r' => 'error'] + $exc($e));
        usleep(200000);
    }
}
$res = new Resource((int) $cfg['resource_port']);
$names = $cfg['names'];
$prims = ['mutex'];
foreach ($cfg['primitives'] ?? [] as $p) {
    if ($p !== 'mutex' && in_array($p, $lib?->primitives() ?? [], true)) {
        $prims[] = $p;
    }
}
$weights = array_intersect_key(PRIMITIVES, array_flip($prims));
// deliberately broken primitives (the checker must see each): see campaign.php's --break
$break = array_flip(array_filter(explode(',', (string) ($cfg['break'] ?? ''))));
$n = 0;
$pick = fn (array $list) => $list[mt_rand(0, count($list) - 1)];

/** One primitive drawn by weight, and what it asks for. */
$draw = function () use ($weights, $names, $cfg, $lib, $pick): array {
    $x = mt_rand(1, array_sum($weights));
    foreach ($weights as $prim => $w) {
        if (($x -= $w) <= 0) {
            break;
        }
    }
    switch ($prim) {
        case 'rw':
            return ['k' => mt_rand(0, 2) === 0 ? 'exclusive' : 'shared', 'ns' => [$pick($cfg['rw_names'])]];
        case 'semaphore':
            [$name, $limit] = $pick($cfg['sem']);
            $permits = $lib->severalPermits() && $limit > 1 && mt_rand(0, 2) === 0 ? 2 : 1;
            return ['k' => 'permits', 'ns' => [$name], 'lim' => $limit, 'pm' => $permits];
        case 'multi':
            $all = $cfg['multi_names'];
            $k = mt_rand(2, min(3, count($all)));
            $ns = [];
            while (count($ns) < $k) {
                $c = $pick($all);
                if (!in_array($c, $ns, true)) {
                    $ns[] = $c;
                }
            }
            return ['k' => 'multi', 'ns' => $ns];
        default:
            return ['k' => 'mutex', 'ns' => [$pick($names)]];
    }
};

while (!$stop) {
    $want = $draw();
    $kind = $want['k'];
    $ns = $want['ns'];
    $name = $ns[0];
    $grant = $id . '#' . (++$n);
    $meta = ['k' => $kind, 'n' => $name] + ($kind === 'multi' ? ['ns' => $ns] : [])
        + ($kind === 'permits' ? ['lim' => $want['lim'], 'pm' => $want['pm']] : []);
    $state("W $kind " . implode(' ', $ns));
    $s = hrtime(true);
    try {
        // $hs: name => handle (a multi-lock's members; one entry for the other kinds)
        $hs = null;
        switch ($kind) {
            case 'mutex':
                $h = $lib->acquire($name);
                $hs = $h === null ? null : [$name => $h];
                break;
            case 'shared':
            case 'exclusive':
                // broken 'rw': a writer that takes a shared lease (the checker must find it beside readers)
                $h = $lib->acquireShared($name, $kind === 'exclusive' && !isset($break['rw']));
                $hs = $h === null ? null : [$name => $h];
                break;
            case 'permits':
                // broken 'semaphore': asks with one permit more than the limit it logs
                $h = $lib->acquirePermits($name, $want['lim'] + (isset($break['semaphore']) ? 1 : 0), $want['pm']);
                $hs = $h === null ? null : [$name => $h];
                break;
            case 'multi':
                // broken 'multi': takes all names but the last, logs them all
                $ask = isset($break['multi']) ? array_slice($ns, 0, -1) : $ns;
                $list = $lib->acquireAll($ask);
                if ($list !== null) {
                    $hs = [];
                    foreach ($list as $i => $h) {
                        $hs[$lib->nameOf($h) ?? $ask[$i]] = $h;
                    }
                    if (isset($break['multi'])) {
                        $hs[end($ns)] = $h;   // the last name "held" by a handle of another
                    }
                }
                break;
        }
    } catch (\Throwable $e) {
        $state('-');
        $rec(['op' => 'acquire', 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => 'error'] + $meta + $exc($e));
        try { $lib->reset(); } catch (\Throwable) {}
        usleep(mt_rand(10000, 50000));
        continue;
    }
    if ($hs === null) {
        $state('-');
        $rec(['op' => 'acquire', 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => 'timeout'] + $meta);
        continue;
    }
    $e = hrtime(true);
    $state("H $kind " . implode(' ', $ns));
    $fences = [];
    foreach ($hs as $nm => $h) {
        $fences[$nm] = $lib->fence($h);
    }
    $first = reset($hs);
    $rec(['op' => 'acquire', 'g' => $grant, 's' => $s, 'e' => $e, 'r' => 'ok', 'tok' => $lib->token($first),
          'f' => $fences[$name] ?? null] + $meta + ($kind === 'multi' ? ['hs' => array_keys($hs), 'fs' => $fences] : []));

    if ($kind === 'permits') {
        // A semaphore guards a count of holders, not a value: the checker counts them.
        // Broken, a grant is held 50-150 ms, so that the limit + 1 the server allows
        // fills: with the 5-30 ms holds of the sound workload, about one run in a
        // thousand made its 60 grants without ever holding more than the limit at
        // once, and the self-test had nothing to catch.
        usleep(isset($break['semaphore']) ? mt_rand(50000, 150000) : mt_rand(5000, 30000));
        $ok = true;
    } elseif ($kind === 'shared') {
        // a reader reads the value twice: a writer beside it shows as a change between the reads
        $s = hrtime(true);
        [$r, $val, $seq] = $res->access($name, 'read', null, $grant);
        $rec(['op' => 'read', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => $r, 'v' => $val, 'q' => $seq, 'f' => null]);
        usleep(mt_rand(5000, 30000));
        $s = hrtime(true);
        [$r, $val2, $seq] = $res->access($name, 'read', null, $grant);
        $rec(['op' => 'reread', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => $r, 'v' => $val2, 'was' => $val, 'q' => $seq, 'f' => null]);
        $ok = true;
    } else {
        // read-modify-write of each name's resource, with that name's fencing token
        $vals = [];
        $ok = true;
        foreach ($fences as $nm => $fence) {
            $s = hrtime(true);
            [$r, $val, $seq] = $res->access($nm, 'read', $fence, $grant);
            $rec(['op' => 'read', 'n' => $nm, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => $r, 'v' => $val, 'q' => $seq, 'f' => $fence]);
            $vals[$nm] = $val;
            $ok = $ok && $r === 'ok';
        }
        if ($ok) {
            usleep(mt_rand(5000, 30000));
        }
    }
    if ($ok && mt_rand(0, 3) === 0) {    // a refresh in one cycle of four, where the library has one
        $s = hrtime(true);
        try {
            $res1 = null;
            foreach ($hs as $h) {
                $one = $lib->refresh($h);
                $res1 = $one === null ? $res1 : (($res1 ?? true) && $one);
            }
            if ($res1 !== null) {
                $rec(['op' => 'refresh', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => $res1 ? 'ok' : 'lost']);
            }
        } catch (\Throwable $e) {
            $rec(['op' => 'refresh', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => 'error'] + $exc($e));
        }
    }
    if ($ok && ($kind === 'mutex' || $kind === 'exclusive' || $kind === 'multi')) {
        foreach ($fences as $nm => $fence) {
            $s = hrtime(true);
            [$r, $val2, $seq] = $res->access($nm, 'write', $fence, $grant, $vals[$nm], (string) ((int) $vals[$nm] + 1));
            $rec(['op' => 'write', 'n' => $nm, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => $r, 'v' => $val2, 'q' => $seq, 'f' => $fence]);
        }
    }

    $s = hrtime(true);
    $state('-');
    try {
        $ok = $kind === 'multi' ? $lib->releaseAll(array_values($hs)) : $lib->release($first);
        $rec(['op' => 'release', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => $ok ? 'ok' : 'lost']);
    } catch (\Throwable $e) {
        $rec(['op' => 'release', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => 'error'] + $exc($e));
        try { $lib->reset(); } catch (\Throwable) {}
    }
    unset($h, $hs, $first, $list);
}
$rec(['op' => 'exit', 's' => hrtime(true), 'e' => hrtime(true), 'r' => 'ok', 'lost_signals' => $lib?->lostSignals() ?? 0]);
