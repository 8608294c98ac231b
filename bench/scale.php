<?php
/*
 * bench/scale.php — how distlock's costs grow with the work (issue 30): one
 * sweep per dimension, a Markdown table per sweep, a gnuplot SVG per sweep.
 *
 *   php -d extension=modules/distlock.so -d extension=redis bench/scale.php \
 *       [--sweep=names,handover,permits,multi,redlock,clients] [--quick] \
 *       [--out=bench/scale] > bench/results-scale.md
 *
 * It starts its own redis-servers (redis-server from PATH, --save '', on free
 * 127.0.0.1 ports, killed at the end) and FLUSHALLs them between points.
 * Server costs come from the server: INFO cpu (used_cpu_user + used_cpu_sys
 * of the redis-server process: every µs it spent, event loop and sockets
 * included) and INFO stats total_reads_processed (one per request a client
 * sent and waited on: a pipeline arriving in one read counts once, so it
 * counts round trips). Latencies are hrtime(true) (CLOCK_MONOTONIC, one clock
 * for every process on the machine).
 *
 * Sweeps:
 *   names     distinct names 1 → 1,000,000, uncontended tryLock+release cycles
 *             (fencing on): µs per cycle, server µs per cycle, keys and
 *             used_memory after
 *   handover  waiters on one name 1 → 200: hand-over p50/p99 (a release →
 *             the next holder's lock() returning, in another process), server
 *             µs and round trips per acquisition; default and fair mode, beside
 *             the floor (RPUSH waking one of the same number of BLPOPs)
 *   permits   permits held on one semaphore 1 → 1,000: server µs per
 *             acquire+release of one more permit
 *   multi     names per lockAll 1 → 64: round trips per acquire+release,
 *             server µs per name against a single tryLock's
 *   redlock   Redlock masters 1, 3, 5, 7 behind a delaying proxy (250 µs each
 *             way): wall per tryLock+release, against one master's round trip
 *   clients   processes 1 → 32 on 1, 100 and 10,000 names: acquisitions per
 *             second of distlock lock(), hand-written phpredis (SET NX PX +
 *             script release), Laravel's PhpRedisLock and symfony's RedisStore
 */
declare(strict_types=1);

require __DIR__ . '/lib/util.php';
require __DIR__ . '/lib/Adapter.php';
require __DIR__ . '/lib/DelayProxy.php';
require __DIR__ . '/lib/DistLockAdapter.php';
require __DIR__ . '/lib/PhpRedisAdapter.php';

use Bench\DelayProxy;
use function Bench\{errors_are_exceptions, pct, table};

errors_are_exceptions();
$opt = getopt('', ['sweep:', 'quick', 'out:']);
$SWEEPS = explode(',', $opt['sweep'] ?? 'names,handover,permits,multi,redlock,clients');
$QUICK = isset($opt['quick']);
$OUT = $opt['out'] ?? __DIR__ . '/scale';
@mkdir($OUT, 0777, true);
if (!extension_loaded('distlock') || !extension_loaded('redis')) {
    fwrite(STDERR, "scale.php: load distlock and redis (phpredis)\n");
    exit(2);
}

// ---- servers ----------------------------------------------------------------

final class Server
{
    public int $port;
    private int $pid;
    private string $dir;

    public function __construct()
    {
        $s = stream_socket_server('tcp://127.0.0.1:0');
        $this->port = (int) substr(strrchr(stream_socket_get_name($s, false), ':'), 1);
        fclose($s);
        $this->dir = sys_get_temp_dir() . "/distlock-scale-{$this->port}";
        @mkdir($this->dir);
        $cmd = sprintf('redis-server --port %d --bind 127.0.0.1 --save "" --appendonly no --dir %s --daemonize no '
            . '>%s/log 2>&1 & echo $!', $this->port, escapeshellarg($this->dir), escapeshellarg($this->dir));
        $this->pid = (int) shell_exec($cmd);
        for ($i = 0; $i < 100 && !@fsockopen('127.0.0.1', $this->port); $i++) usleep(50000);
    }

    public function redis(): Redis
    {
        $r = new Redis();
        $r->connect('127.0.0.1', $this->port, 2.0);
        $r->setOption(Redis::OPT_READ_TIMEOUT, 60.0);
        return $r;
    }

    public function uri(): string { return "redis://127.0.0.1:{$this->port}"; }

    public function __destruct()
    {
        if (getmypid() === $GLOBALS['MAIN_PID']) {
            posix_kill($this->pid, SIGTERM);
            exec('rm -rf ' . escapeshellarg($this->dir));
        }
    }
}

/** Server CPU µs (user + sys) and reads processed so far. */
function server_counters(Redis $r): array
{
    $cpu = $r->info('cpu');
    $stats = $r->info('stats');
    return [($cpu['used_cpu_user'] + $cpu['used_cpu_sys']) * 1e6, (int) $stats['total_reads_processed']];
}

$MAIN_PID = getmypid();
$SRV = new Server();
$R = $SRV->redis();

/** Forks $n children running $fn($i); runs $then() in the parent once all are forked; waits for them. */
function fork_all(int $n, callable $fn, ?callable $then = null): void
{
    $pids = [];
    for ($i = 0; $i < $n; $i++) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            try { $fn($i); } catch (Throwable $e) { fwrite(STDERR, "child $i: " . $e->getMessage() . "\n"); }
            Bench\child_exit();
        }
        $pids[] = $pid;
    }
    if ($then) $then();
    foreach ($pids as $pid) pcntl_waitpid($pid, $st);
}

/** Writes a TSV and an SVG plot (gnuplot) of columns; returns the Markdown image line. */
function plot(string $name, string $title, string $xlabel, string $ylabel, array $head, array $rows, bool $logx = true,
              bool $logy = false): string
{
    global $OUT;
    $tsv = "$OUT/$name.tsv";
    $lines = ['# ' . implode("\t", $head)];
    foreach ($rows as $r) $lines[] = implode("\t", array_map(fn($v) => is_float($v) ? sprintf('%.3f', $v) : (string) $v, $r));
    file_put_contents($tsv, implode("\n", $lines) . "\n");
    $series = [];
    for ($c = 2; $c <= count($head); $c++) {
        $series[] = sprintf('"%s" using 1:%d with linespoints title "%s"', $tsv, $c, str_replace('"', "'", $head[$c - 1]));
    }
    $gp = "set terminal svg size 720,420 font 'sans,12'\nset output '$OUT/$name.svg'\nset title \"$title\"\n"
        . "set xlabel \"$xlabel\"\nset ylabel \"$ylabel\"\nset grid\nset key top left\n"
        . ($logx ? "set logscale x\n" : '') . ($logy ? "set logscale y\n" : '') . "set yrange [0:*]\n"
        . 'plot ' . implode(', ', $series) . "\n";
    if ($logy) $gp = str_replace("set yrange [0:*]\n", '', $gp);
    file_put_contents("$OUT/$name.gp", $gp);
    exec('gnuplot ' . escapeshellarg("$OUT/$name.gp") . ' 2>&1', $o, $rc);
    if ($rc !== 0) fwrite(STDERR, "gnuplot $name: " . implode("\n", $o) . "\n");
    return "![$title](scale/$name.svg)";
}

function progress(string $m): void { fwrite(STDERR, '[scale] ' . $m . "\n"); }

$md = ["# Costs as the work grows (issue 30)\n",
    sprintf("Machine: %s, %d cores (shared, load %.2f at start), PHP %s, Redis %s, distlock %s. Generated by "
        . "`bench/scale.php%s` on %s. Each sweep: table, then plot (gnuplot SVG, data in `bench/scale/*.tsv`).\n",
        php_uname('m'), (int) trim((string) shell_exec('nproc')), sys_getloadavg()[0], PHP_VERSION,
        $R->info('server')['redis_version'], phpversion('distlock'), $QUICK ? ' --quick' : '', gmdate('Y-m-d H:i') . ' UTC')];

// ---- 1. distinct names ------------------------------------------------------

if (in_array('names', $SWEEPS, true)) {
    // Three rounds over every point, interleaved (drift on this shared machine hits every
    // point alike); each point reports its median round. Keys and memory: the last round's.
    $max = $QUICK ? 100000 : 1000000;
    $points = [];
    for ($n = 1; $n <= $max; $n *= 10) $points[] = $n;
    $runs = [];
    for ($round = 0; $round < 3; $round++) {
        foreach ($points as $n) {
            $R->flushAll();
            $base = (int) $R->info('memory')['used_memory'];
            $d = new DistLock($SRV->uri(), ['prefix' => 'scale:', 'fencing' => true]);
            $cycles = max($n, $QUICK ? 5000 : 20000);
            $d->tryLock('warm', 10)->release();
            [$c0, $r0] = server_counters($R);
            $t0 = hrtime(true);
            for ($i = 0; $i < $cycles; $i++) $d->tryLock('account:' . ($i % $n), 10)->release();
            $us = (hrtime(true) - $t0) / 1e3 / $cycles;
            [$c1, $r1] = server_counters($R);
            $runs[$n][] = [$us, ($c1 - $c0) / $cycles, ($r1 - $r0) / $cycles, (int) $R->dbSize(),
                ((int) $R->info('memory')['used_memory'] - $base) / 1024];
            progress("names $n round $round: " . sprintf('%.1f µs', $us));
        }
    }
    $rows = [];
    foreach ($points as $n) {
        $med = fn(int $k) => (function (array $v) { sort($v); return $v[intdiv(count($v), 2)]; })(array_column($runs[$n], $k));
        $last = end($runs[$n]);
        $rows[] = [$n, $med(0), $med(1), $med(2), $last[3], $last[4]];
    }
    $md[] = "## 1. Distinct names (uncontended cycles, fencing on)\n\n`tryLock(\"account:\" . (i % names), 10)` + "
        . "`release()`, max(names, " . ($QUICK ? '5,000' : '20,000') . ") cycles per point, one process; three rounds "
        . "over all points, interleaved, each point's median round.\n\n"
        . table(['names', 'µs per cycle', 'server CPU µs per cycle', 'round trips per cycle', 'keys after', 'used_memory after, KiB'],
            array_map(fn($r) => [number_format($r[0]), sprintf('%.1f', $r[1]), sprintf('%.1f', $r[2]), sprintf('%.2f', $r[3]),
                number_format($r[4]), sprintf('%.0f', $r[5])], $rows))
        . "\n" . plot('names', 'Uncontended cycle vs distinct names', 'distinct names', 'µs per cycle',
            ['names', 'client µs per cycle', 'server CPU µs per cycle'], array_map(fn($r) => [$r[0], $r[1], $r[2]], $rows))
        . "\n";
}

// ---- 2. waiters on one name: hand-over ----------------------------------------

/**
 * $w processes take turns on one name: lock, hold 2 ms, release, think 1 ms
 * (longer than a hand-over: the releaser does not take it back first; shorter
 * than the hold: the others are blocked again when it is released), $per
 * acquisitions each. A hand-over counts when the next holder was already
 * waiting when the lock was released. The floor does the same with a token
 * passed through one list (BLPOP, RPUSH).
 * Returns [hand-over p50 ms, p99 ms, server CPU µs per acquisition, round trips per acquisition,
 * hand-overs counted, the hand-overs (ms)].
 */
function handover_point(Server $srv, Redis $r, string $mode, int $w, int $per): array
{
    $r->flushAll();
    $dir = sys_get_temp_dir() . '/distlock-scale-ho-' . getmypid();
    @mkdir($dir);
    [$go, $goW] = Bench\pair();
    [$ready, $readyW] = Bench\pair();
    $c0 = $r0 = 0;
    fork_all($w, function (int $i) use ($srv, $mode, $per, $dir, $go, $readyW) {
        $ev = [];
        if ($mode === 'floor') {
            $c = $srv->redis();
        } else {
            $d = new DistLock($srv->uri(), ['prefix' => 'scale:', 'fair' => $mode === 'fair']);
            $d->tryLock("warm$i", 1)?->release();
        }
        fwrite($readyW, 'r');
        Bench\read_exact($go, 1, 120);   // all start together, after the parent's first reading
        for ($k = 0; $k < $per; $k++) {
            $called = hrtime(true);
            if ($mode === 'floor') {
                $c->blPop(['scale:token'], 60);
                $a = hrtime(true);
                usleep(2000);
                $b = hrtime(true);
                $c->rPush('scale:token', '1');
            } else {
                $l = $d->lock('hot', 30, 120);
                $a = hrtime(true);
                usleep(2000);
                $b = hrtime(true);
                $l->release();
            }
            $ev[] = [$a, $b, $i, $called];
            usleep(1000);
        }
        file_put_contents("$dir/$i", serialize($ev));
    }, function () use ($r, $w, $mode, $ready, $goW, &$c0, &$r0) {
        Bench\read_exact($ready, $w, 120);
        if ($mode === 'floor') $r->rPush('scale:token', '1');
        [$c0, $r0] = server_counters($r);
        fwrite($goW, str_repeat('g', $w));
    });
    [$c1, $r1] = server_counters($r);
    $all = [];
    foreach (glob("$dir/*") as $f) { $all = array_merge($all, unserialize(file_get_contents($f))); unlink($f); }
    @rmdir($dir);
    usort($all, fn($x, $y) => $x[0] <=> $y[0]);
    $lat = [];
    for ($k = 1; $k < count($all); $k++) {
        [$acq, , $who, $called] = $all[$k];
        [, $rel, $prev] = $all[$k - 1];
        if ($who !== $prev && $called < $rel && $acq > $rel) $lat[] = ($acq - $rel) / 1e6;
    }
    $n = max(1, count($all));
    return [$lat ? pct($lat, 50) : NAN, $lat ? pct($lat, 99) : NAN, ($c1 - $c0) / $n, ($r1 - $r0) / $n, count($lat), $lat];
}

if (in_array('handover', $SWEEPS, true)) {
    $rows = [];
    // Rounds, each running floor, default and fair back to back: the machine's
    // speed drifts (a shared VM), and a ratio is only fair between neighbours.
    // The table pools every round's hand-overs; the ratio's range is per round.
    $rounds = $QUICK ? 1 : 5;
    foreach ($QUICK ? [2, 10, 50] : [2, 5, 10, 20, 50, 100, 200] as $w) {
        $per = max(4, (int) ceil(($QUICK ? 100 : 1000) / $w));
        $acc = [];
        foreach (['floor', 'default', 'fair'] as $mode) $acc[$mode] = ['lat' => [], 'cpu' => 0.0, 'rt' => 0.0, 'p50' => []];
        for ($round = 0; $round < $rounds; $round++) {
            foreach (['floor', 'default', 'fair'] as $mode) {
                $res = handover_point($SRV, $R, $mode, $w, $per);
                array_push($acc[$mode]['lat'], ...$res[5]);
                $acc[$mode]['cpu'] += $res[2] / $rounds;
                $acc[$mode]['rt'] += $res[3] / $rounds;
                $acc[$mode]['p50'][] = $res[0];
                progress(sprintf('handover %s %d round %d: p50 %.3f ms', $mode, $w, $round + 1, $res[0]));
            }
        }
        $row = [$w];
        foreach ($acc as $mode => $a) {
            $row[$mode] = [pct($a['lat'], 50), pct($a['lat'], 99), $a['cpu'], $a['rt'], count($a['lat'])];
            if ($mode !== 'floor') {
                $ratios = array_map(fn($x, $f) => $x / $f, $a['p50'], $acc['floor']['p50']);
                $row[$mode][5] = [min($ratios), max($ratios)];
            }
        }
        $rows[] = $row;
    }
    $tbl = [];
    foreach ($rows as $row) {
        $tbl[] = [$row[0], sprintf('%.3f', $row['floor'][0]), sprintf('%.3f', $row['floor'][1]),
            sprintf('%.3f', $row['default'][0]), sprintf('%.3f', $row['default'][1]),
            sprintf('%.2f× (%.2f–%.2f)', $row['default'][0] / $row['floor'][0], ...$row['default'][5]),
            sprintf('%.3f', $row['fair'][0]), sprintf('%.3f', $row['fair'][1]),
            sprintf('%.2f× (%.2f–%.2f)', $row['fair'][0] / $row['floor'][0], ...$row['fair'][5]),
            sprintf('%.1f / %.1f / %.1f', $row['floor'][2], $row['default'][2], $row['fair'][2]),
            sprintf('%.2f / %.2f / %.2f', $row['floor'][3], $row['default'][3], $row['fair'][3])];
    }
    $md[] = "## 2. Waiters on one name: hand-over\n\nN processes take turns on one name (one holds, the others wait): "
        . "`lock('hot', 30, 120)`, hold 2 ms, `release()`, think 1 ms; hand-over = the releaser's last stamp before "
        . "`release()` → the next holder's first stamp after `lock()` returned, counted when that holder was already "
        . "waiting at the release. Floor: the same processes passing one token through a list "
        . "(`BLPOP` / `RPUSH`), the least any Redis-mediated hand-over costs. Server CPU and round trips are per acquisition, "
        . "every process's requests included (its acquire, block, release). "
        . ($rounds > 1 ? "$rounds rounds per point, each running the floor, default and fair mode back to back (the machine's "
            . "speed drifts); p50 and p99 pool every round's hand-overs; ÷ floor is the pooled p50's ratio, and in brackets "
            . "the lowest and highest of the rounds' ratios.\n\n" : "\n\n")
        . table(['processes', 'floor p50 ms', 'floor p99', 'default p50 ms', 'default p99', 'default ÷ floor',
            'fair p50 ms', 'fair p99', 'fair ÷ floor', 'server CPU µs per acq. (floor / default / fair)',
            'round trips per acq. (floor / default / fair)'], $tbl)
        . "\n" . plot('handover', 'Hand-over p50 vs processes on one name', 'processes (one holds, the others wait)', 'ms',
            ['processes', 'floor (RPUSH → BLPOP)', 'distlock default', 'distlock fair'],
            array_map(fn($r) => [$r[0], $r['floor'][0], $r['default'][0], $r['fair'][0]], $rows))
        . "\n" . plot('handover-server', 'Server cost per acquisition vs processes on one name', 'processes (one holds, the others wait)',
            'server CPU µs', ['processes', 'floor', 'distlock default', 'distlock fair'],
            array_map(fn($r) => [$r[0], $r['floor'][2], $r['default'][2], $r['fair'][2]], $rows))
        . "\n";
}

// ---- 3. permits held on one semaphore -------------------------------------------

if (in_array('permits', $SWEEPS, true)) {
    $rows = [];
    foreach ([1, 10, 100, 1000] as $held) {
        $R->flushAll();
        $d = new DistLock($SRV->uri(), ['prefix' => 'scale:']);
        for ($i = 0; $i < $held; $i++) $d->tryAcquirePermits('pool', 1000000, 1, 60)->detach();
        $cycles = $QUICK ? 1000 : 5000;
        $d->tryAcquirePermits('pool', 1000000, 1, 60)->release();
        [$c0, $r0] = server_counters($R);
        $t0 = hrtime(true);
        for ($i = 0; $i < $cycles; $i++) $d->tryAcquirePermits('pool', 1000000, 1, 60)->release();
        $us = (hrtime(true) - $t0) / 1e3 / $cycles;
        [$c1] = server_counters($R);
        $rows[] = [$held, $us, ($c1 - $c0) / $cycles];
        progress("permits $held: " . sprintf('%.1f µs', $us));
    }
    $md[] = "## 3. Permits held on one semaphore\n\n`tryAcquirePermits('pool', 1000000, 1, 60)` + `release()` while "
        . "N other holders keep one permit each.\n\n"
        . table(['permits held', 'µs per cycle', 'server CPU µs per cycle'],
            array_map(fn($r) => [number_format($r[0]), sprintf('%.1f', $r[1]), sprintf('%.1f', $r[2])], $rows))
        . "\n" . plot('permits', 'Semaphore acquire+release vs permits held', 'permits held', 'µs',
            ['held', 'client µs per cycle', 'server CPU µs per cycle'], $rows)
        . "\n";
}

// ---- 4. names per multi-lock -----------------------------------------------------

if (in_array('multi', $SWEEPS, true)) {
    $rows = [];
    $R->flushAll();
    $d = new DistLock($SRV->uri(), ['prefix' => 'scale:']);
    $cycles = $QUICK ? 500 : 2000;
    $d->tryLock('warm', 10)->release();
    [$c0, $r0] = server_counters($R);
    for ($i = 0; $i < $cycles; $i++) $d->tryLock("single$i", 10)->release();
    [$c1, $r1] = server_counters($R);
    $single = ($c1 - $c0) / $cycles;
    foreach ([1, 2, 4, 8, 16, 32, 64] as $k) {
        $names = array_map(fn($j) => "m$j", range(1, $k));
        $d->releaseAll($d->tryLockAll($names, 10));
        [$c0, $r0] = server_counters($R);
        for ($i = 0; $i < $cycles; $i++) $d->releaseAll($d->tryLockAll($names, 10));
        [$c1, $r1] = server_counters($R);
        $rows[] = [$k, ($r1 - $r0) / $cycles, ($c1 - $c0) / $cycles / $k, ($c1 - $c0) / $cycles / $k / $single];
        progress("multi $k");
    }
    $md[] = sprintf("## 4. Names per multi-lock\n\n`tryLockAll(k names, 10)` + `releaseAll()`, %d cycles; a single "
        . "`tryLock()` + `release()` cycle costs the server %.1f µs.\n\n", $cycles, $single)
        . table(['names', 'round trips per acquire+release', 'server CPU µs per name', '÷ a single lock\'s cycle'],
            array_map(fn($r) => [$r[0], sprintf('%.2f', $r[1]), sprintf('%.1f', $r[2]), sprintf('%.2f', $r[3])], $rows))
        . "\n" . plot('multi', 'Multi-lock: server µs per name', 'names per lockAll', 'server CPU µs per name',
            ['names', 'server CPU µs per name'], array_map(fn($r) => [$r[0], $r[2]], $rows))
        . "\n";
}

// ---- 5. Redlock masters ------------------------------------------------------------

if (in_array('redlock', $SWEEPS, true)) {
    $srvs = [$SRV];
    while (count($srvs) < 7) $srvs[] = new Server();
    $proxies = array_map(fn($s) => new DelayProxy('127.0.0.1', $s->port, 250), $srvs);
    $rows = [];
    $ping = new Redis();
    $ping->connect('127.0.0.1', $proxies[0]->port, 2.0);
    $lat = [];
    for ($i = 0; $i < 300; $i++) { $t = hrtime(true); $ping->ping(); $lat[] = (hrtime(true) - $t) / 1e6; }
    $rtt = pct($lat, 50);
    foreach ([1, 3, 5, 7] as $n) {
        $uris = array_map(fn($p) => "redis://127.0.0.1:{$p->port}", array_slice($proxies, 0, $n));
        $d = new DistLock($n === 1 ? $uris[0] : $uris, ['prefix' => 'scale:rl:', 'timeout' => 2]);
        for ($i = 0; $i < 20; $i++) $d->tryLock("w$i", 10)->release();
        $lat = [];
        for ($i = 0; $i < ($QUICK ? 100 : 300); $i++) { $t = hrtime(true); $d->tryLock("rl$i", 10)->release(); $lat[] = (hrtime(true) - $t) / 1e6; }
        $rows[] = [$n, pct($lat, 50), pct($lat, 50) / $rtt];
        progress("redlock $n");
    }
    $md[] = sprintf("## 5. Redlock masters behind a delaying proxy\n\nEvery master behind `lib/DelayProxy.php` "
        . "(250 µs each way); one round trip (`PING`) through it: p50 %.3f ms. `tryLock()` + `release()` (N = 1: "
        . "one server, not Redlock).\n\n", $rtt)
        . table(['masters', 'p50 ms per cycle', 'cycle ÷ one round trip'],
            array_map(fn($r) => [$r[0], sprintf('%.3f', $r[1]), sprintf('%.2f', $r[2])], $rows))
        . "\n" . plot('redlock', 'Redlock cycle vs masters (250 µs each way)', 'masters', 'ms per cycle',
            ['masters', 'tryLock + release p50'], array_map(fn($r) => [$r[0], $r[1]], $rows), false)
        . "\n";
    unset($proxies);
}

// ---- 6. client processes ------------------------------------------------------------

if (in_array('clients', $SWEEPS, true)) {
    $peers = ['distlock' => fn() => new Bench\DistLockAdapter($SRV->uri(), [], 'distlock'),
        'phpredis' => fn() => new Bench\PhpRedisAdapter('127.0.0.1', $SRV->port)];
    if (stream_resolve_include_path('Illuminate/Cache/autoload.php')) {
        require __DIR__ . '/lib/LaravelAdapter.php';
        $peers['laravel'] = fn() => new Bench\LaravelAdapter('127.0.0.1', $SRV->port);
    }
    if (stream_resolve_include_path('Symfony/Component/Lock/autoload.php')) {
        require __DIR__ . '/lib/SymfonyAdapter.php';
        $peers['symfony'] = fn() => new Bench\SymfonyAdapter('127.0.0.1', $SRV->port);
    }
    $secs = $QUICK ? 1.0 : 2.0;
    $md[] = "## 6. Client processes\n\nEach process runs its implementation's blocking acquire (`run(name, ttl 10, "
        . "wait 10)`, empty critical section) on a name drawn at random among M, for $secs s; acquisitions per second, all processes.\n";
    foreach ([1, 100, 10000] as $m) {
        $rows = [];
        foreach ($QUICK ? [1, 4, 16] : [1, 2, 4, 8, 16, 32] as $c) {
            $row = [$c];
            foreach ($peers as $id => $mk) {
                $R->flushAll();
                $file = tempnam(sys_get_temp_dir(), 'scale');
                $until = hrtime(true) + (int) ($secs * 1e9) + 300000000;
                fork_all($c, function (int $i) use ($mk, $m, $until, $file) {
                    $a = $mk();
                    $a->warm();
                    mt_srand(getmypid());
                    $n = 0;
                    $start = hrtime(true) + 300000000;   // all forked by then
                    while (hrtime(true) < $start) usleep(1000);
                    while (hrtime(true) < $until) {
                        if ($a->run('c' . mt_rand(1, $m), 10.0, 10.0, null)) $n++;
                    }
                    file_put_contents($file, "$n\n", FILE_APPEND | LOCK_EX);
                });
                $total = array_sum(array_map('intval', file($file)));
                unlink($file);
                $row[$id] = $total / $secs;
                progress("clients m=$m c=$c $id: " . round($row[$id]));
            }
            $rows[] = $row;
        }
        $ids = array_keys($peers);
        $md[] = "### $m name" . ($m > 1 ? 's' : '') . "\n\n" . table(array_merge(['processes'], array_map(fn($i) => "$i acq/s", $ids),
                ['distlock ÷ phpredis']),
            array_map(fn($r) => array_merge([$r[0]], array_map(fn($i) => number_format($r[$i]), $ids),
                [sprintf('%.2f', $r['distlock'] / max(1, $r['phpredis']))]), $rows))
            . "\n" . plot("clients-$m", "Acquisitions per second, $m name" . ($m > 1 ? 's' : ''), 'client processes', 'acquisitions/s',
                array_merge(['processes'], $ids), array_map(fn($r) => array_merge([$r[0]], array_map(fn($i) => $r[$i], $ids)), $rows))
            . "\n";
    }
}

echo implode("\n", $md);
