<?php
/*
 * bench/implicit-release.php — the wire and server cost of the implicit
 * (scoped or destructor) release, sent by EVAL with the whole script, against
 * the same release by EVALSHA (issue 46.4; the decision:
 * docs/decisions/0063-implicit-release-wire-cost.md; results:
 * bench/results-implicit-release.md).
 *
 *   php -n -d extension=igbinary -d extension=redis -d extension=modules/distlock.so \
 *       bench/implicit-release.php [--cycles=20000] [--runs=5] [--port=27460] [--pin=same|split|none] \
 *       [SERVER_BIN ...]
 *
 * SERVER_BIN: the redis-server binaries to compare; by default `redis-server`
 * from PATH (Redis 7.0.15 on Debian 12) and, when it exists,
 * $DISTLOCK_CACHE_DIR/servers/redis-8.6.3-1/bin/redis-server (DELEX). Each is
 * started throwaway (--save '' --appendonly no, 127.0.0.1, ports PORT,
 * PORT+1, ...) and shut down at the end. It needs a C compiler (cc) to read
 * the release script's text from src/core/lease/dl_scripts.h.
 *
 * --pin (taskset): same (default) puts this process and the servers on CPU 1,
 * split puts this process on CPU 0 and the servers on CPU 1, none leaves the
 * scheduler to choose. On a small VM a wake-up across CPUs costs tens of µs
 * (the round trip is about 20 µs on one CPU, 70 µs across two), and unpinned
 * runs fall in either mode at random: pin, and compare within one layout.
 *
 * A cycle is the acquire and the release of one name, uncontended:
 *   distlock      $l = $d->tryLock(name, 10.0); $l = null; as shipped: the
 *                 handle's destruction writes the release, and its reply is
 *                 read with the next tryLock's SET (one round trip a cycle).
 *   eval          a bare socket, distlock's bytes and shape: the release
 *                 written alone (EVAL, distlock's script text, keys and
 *                 arguments), then SET K token NX PX 10000 GET written and
 *                 both replies read.
 *   evalsha       the same, the release by EVALSHA (the script cached by an
 *                 EVAL in the warm-up): what the proposed change would send.
 *   eval 1w, evalsha 1w
 *                 phpredis, one pipeline a cycle (the release and the next
 *                 SET NX PX in one write): the server reads once a cycle.
 *   native        (servers with DELEX only, a reference) as eval, the release
 *                 being DELEX K IFEQ token + EXISTS Q in one write.
 * Each run measures every variant on every server in turn, the order rotated
 * from run to run; the tables give the median of the runs and, for the time
 * and CPU columns, the lowest and highest run.
 *
 * Then, on each server, what an empty script cache (SCRIPT FLUSH) does to a
 * release written and not awaited, with the same name taken again at once
 * behind it on the connection: as shipped (EVAL), and by EVALSHA (the bare
 * socket: the release, then SET NX PX GET, then the replies).
 *
 * Units (all per cycle, that is per release, unless named):
 *   client µs      wall time of the loop / cycles (hrtime)
 *   client CPU µs  this process's user + system CPU / cycles (getrusage)
 *   server CPU µs  INFO cpu used_cpu_user + used_cpu_sys delta / cycles: every
 *                  µs the server spent, reading, parsing and writing included
 *   ms / 10k       server CPU per 10,000 releases (cycles), ms
 *   usec_per_call  INFO commandstats of the release command (EVAL, EVALSHA or
 *                  DELEX): the command's own execution, not the reading and
 *                  parsing of its request (nor, for EVAL, the SHA1 of the
 *                  body, done before the command runs)
 *   cmd µs         the sum of every command's usec in commandstats / cycles
 *   reads, writes  INFO stats total_reads_processed, total_writes_processed
 *   bytes in/out   INFO stats total_net_input_bytes / total_net_output_bytes
 *                  / cycles (the counters are reset before the loop; the one
 *                  INFO that reads them is taken off)
 *   request B      the release's request in RESP, bytes (computed)
 */
declare(strict_types=1);

require __DIR__ . '/lib/util.php';
require __DIR__ . '/lib/release-script.php';
require __DIR__ . '/lib/resp.php';

use function Bench\median;
use function Bench\fmt;
use function Bench\table;
use function Bench\progress;
use function Bench\cpu_us;

if (!extension_loaded('distlock') || !extension_loaded('redis')) {
    fwrite(STDERR, "implicit-release.php: load distlock and redis (phpredis)\n");
    exit(2);
}
Bench\errors_are_exceptions();

$opt = getopt('', ['cycles:', 'runs:', 'port:', 'pin:'], $rest);
$CYCLES = (int) ($opt['cycles'] ?? 20000);
$RUNS = (int) ($opt['runs'] ?? 5);
$PORT = (int) ($opt['port'] ?? 27460);
$PIN = $opt['pin'] ?? 'same';
[$CLIENT_CPU, $SERVER_CPU] = match ($PIN) { 'same' => ['1', '1'], 'split' => ['0', '1'], 'none' => [null, null] };
if ($CLIENT_CPU !== null) {
    exec('taskset -cp ' . $CLIENT_CPU . ' ' . getmypid() . ' >/dev/null', $o, $rc);   // before distlock starts a thread
    if ($rc !== 0) throw new RuntimeException('taskset failed');
}
$bins = array_slice($argv, $rest);
if (!$bins) {
    $bins = ['redis-server'];
    $b86 = (getenv('DISTLOCK_CACHE_DIR') ?: '/var/cache/distlock-test') . '/servers/redis-8.6.3-1/bin/redis-server';
    if (is_executable($b86)) $bins[] = $b86;
}
const NAME = 'implicit-release';      // every variant uses distlock's keys for this name
const K = 'lock:' . NAME;
const W = K . '{' . K . '}:wake';
const Q = K . '{' . K . '}:waiters';
const WAKE_TTL = '2000';              // DL_WAKE_TTL_MS, the release's ARGV[2]

/** One reply from a bare socket: an integer, a string, null, or an error as ['err' => line]. @param resource $s */
function reply($s): int|string|array|null
{
    $line = fgets($s);
    if ($line === false) throw new RuntimeException('connection closed');
    $v = substr($line, 1, -2);
    switch ($line[0]) {
        case ':': return (int) $v;
        case '+': return $v;
        case '-': return ['err' => $v];
        case '$':
            if ((int) $v < 0) return null;
            $b = '';
            while (strlen($b) < (int) $v + 2) $b .= fread($s, (int) $v + 2 - strlen($b));
            return substr($b, 0, -2);
    }
    throw new RuntimeException('unexpected reply: ' . $line);
}

final class Server
{
    public string $version;
    public bool $delex;
    private Redis $stats;

    public function __construct(public string $bin, public int $port, ?string $cpu)
    {
        exec(($cpu !== null ? 'taskset -c ' . $cpu . ' ' : '') . escapeshellarg($bin) . " --port $port --bind 127.0.0.1"
            . " --save '' --appendonly no --daemonize yes --logfile /dev/null", $out, $rc);
        for ($i = 0; $i < 100 && !@fsockopen('127.0.0.1', $port); $i++) usleep(50000);
        $this->stats = $this->redis();
        $this->version = $this->stats->info('server')['redis_version'];
        $this->delex = (bool) $this->stats->rawCommand('COMMAND', 'INFO', 'DELEX')[0];
    }

    public function redis(): Redis
    {
        $r = new Redis();
        $r->connect('127.0.0.1', $this->port, 2.0);
        $r->setOption(Redis::OPT_READ_TIMEOUT, 30.0);
        return $r;
    }

    /** A bare socket, TCP_NODELAY as hiredis and Redis set it. @return resource */
    public function socket()
    {
        $ctx = stream_context_create(['socket' => ['tcp_nodelay' => true]]);
        $s = stream_socket_client("tcp://127.0.0.1:{$this->port}", $no, $str, 2.0, STREAM_CLIENT_CONNECT, $ctx);
        stream_set_timeout($s, 30);
        return $s;
    }

    public function cpuUs(): float
    {
        $c = $this->stats->info('cpu');
        return ($c['used_cpu_user'] + $c['used_cpu_sys']) * 1e6;
    }

    public function reset(): void
    {
        $this->stats->rawCommand('CONFIG', 'RESETSTAT');
    }

    /** INFO stats + commandstats in one request: bytes in/out, reads/writes, and per command [calls, usec]. */
    public function read(): array
    {
        $txt = (string) $this->stats->rawCommand('INFO', 'stats', 'commandstats');
        $stat = fn (string $k) => preg_match("/^$k:(\\d+)/m", $txt, $m) ? (int) $m[1] : 0;
        preg_match_all('/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/m', $txt, $m, PREG_SET_ORDER);
        $cmds = [];
        foreach ($m as $c) {
            if ($c[1] !== 'info' && $c[1] !== 'config') $cmds[$c[1]] = [(int) $c[2], (int) $c[3]];
        }
        // This INFO's own request was read (one read, its bytes) before the counters were.
        return ['in' => $stat('total_net_input_bytes') - strlen(resp_encode('INFO', 'stats', 'commandstats')),
                'out' => $stat('total_net_output_bytes'), 'reads' => $stat('total_reads_processed') - 1,
                'writes' => $stat('total_writes_processed'), 'cmds' => $cmds];
    }

    public function flushScripts(): void
    {
        $this->stats->rawCommand('SCRIPT', 'FLUSH');
    }

    public function shutdown(): void
    {
        try { $this->stats->rawCommand('SHUTDOWN', 'NOSAVE'); } catch (Throwable) {}
    }
}

/** The release of $tok as the variant sends it: the commands, in RESP. */
function release_cmd(string $variant, string $tok, string $script, string $sha): string
{
    return match ($variant) {
        'eval' => resp_encode('EVAL', $script, '3', K, W, Q, $tok, WAKE_TTL),
        'evalsha' => resp_encode('EVALSHA', $sha, '3', K, W, Q, $tok, WAKE_TTL),
        'native' => resp_encode('DELEX', K, 'IFEQ', $tok) . resp_encode('EXISTS', Q),
    };
}

/**
 * One variant's loop of $n cycles, ready to run (connected and warmed up):
 * returns [the loop, what settles afterwards].
 * @return array{Closure, Closure}
 */
function prepare(string $variant, Server $s, string $script, string $sha): array
{
    if ($variant === 'distlock') {
        $d = new DistLock("redis://127.0.0.1:{$s->port}", ['timeout' => 10]);
        for ($i = 0; $i < 200; $i++) { $l = $d->tryLock(NAME, 10.0); $l = null; }
        $d->isLocked(NAME);   // settles the last warm-up release before the counters are reset
        return [function (int $n) use ($d) {
            for ($i = 0; $i < $n; $i++) {
                $l = $d->tryLock(NAME, 10.0);
                if (!$l) throw new RuntimeException('distlock: not acquired');
                $l = null;    // the implicit release: written, its reply read with the next SET
            }
        }, function () use ($d) { $d->isLocked(NAME); }];
    }
    if (in_array($variant, ['eval', 'evalsha', 'native'], true)) {
        $sock = $s->socket();
        fwrite($sock, resp_encode('EVAL', $script, '3', K, W, Q, 'none', WAKE_TTL));   // cached, as by a first release
        reply($sock);
        $nrel = $variant === 'native' ? 2 : 1;   // replies of a release
        $loop = function (int $n) use ($sock, $variant, $script, $sha, $nrel) {
            $prev = null;
            for ($i = 0; $i <= $n; $i++) {
                if ($prev !== null) fwrite($sock, release_cmd($variant, $prev, $script, $sha));   // written alone
                if ($i === $n) break;
                $tok = bin2hex(random_bytes(16));
                fwrite($sock, resp_encode('SET', K, $tok, 'NX', 'PX', '10000', 'GET'));
                if ($prev !== null && reply($sock) !== 1) throw new RuntimeException("$variant: not released");
                if ($nrel === 2 && $prev !== null) reply($sock);
                if (reply($sock) !== null) throw new RuntimeException("$variant: not acquired");
                $prev = $tok;
            }
            if (reply($sock) !== 1) throw new RuntimeException("$variant: not released");   // the last one's
            if ($nrel === 2) reply($sock);
        };
        $loop(200);
        return [$loop, function () {}];
    }
    $r = $s->redis();
    $release = match ($variant) {
        'eval 1w' => fn (Redis $p, string $tok) => $p->eval($script, [K, W, Q, $tok, WAKE_TTL], 3),
        'evalsha 1w' => fn (Redis $p, string $tok) => $p->evalSha($sha, [K, W, Q, $tok, WAKE_TTL], 3),
    };
    $loop = function (int $n) use ($r, $release) {
        $prev = null;
        for ($i = 0; $i < $n; $i++) {
            $tok = bin2hex(random_bytes(16));
            $p = $r->multi(Redis::PIPELINE);
            if ($prev !== null) $release($p, $prev);
            $p->set(K, $tok, ['nx', 'px' => 10000]);
            $res = $p->exec();
            if ($res[count($res) - 1] !== true || ($prev !== null && $res[0] !== 1)) {
                throw new RuntimeException('phpredis: ' . json_encode($res));
            }
            $prev = $tok;
        }
        $res = $release($r, $prev);   // the last cycle's, alone
        if ($res !== 1) throw new RuntimeException('phpredis: ' . json_encode($res));
    };
    $r->eval($script, [K, W, Q, 'none', WAKE_TTL], 3);   // cached, as by a first release
    $loop(200);
    return [$loop, function () {}];
}

/**
 * A lease held, the script cache emptied, the lease released without waiting
 * and the name taken again at once on the same connection. @return array{string, string}
 */
function after_flush(Server $s, string $script, string $sha): array
{
    $d = new DistLock("redis://127.0.0.1:{$s->port}", ['timeout' => 10]);
    $l = $d->tryLock(NAME . ':flush', 10.0);
    $s->flushScripts();
    $l = null;                                  // as shipped: EVAL
    $again = $d->tryLock(NAME . ':flush', 10.0);
    $shipped = 'EVAL ran; the next tryLock() ' . ($again ? 'was granted' : 'was refused');
    $again = null;
    $d->isLocked(NAME);
    $sock = $s->socket();
    fwrite($sock, resp_encode('SET', K, 'first', 'NX', 'PX', '10000'));
    reply($sock);
    $s->flushScripts();
    fwrite($sock, release_cmd('evalsha', 'first', $script, $sha));   // written, not awaited
    fwrite($sock, resp_encode('SET', K, 'second', 'NX', 'PX', '10000', 'GET'));
    $rel = reply($sock);
    $set = reply($sock);
    $byEvalsha = (is_array($rel) ? strtok($rel['err'], ' ') : 'ran') . '; the SET behind it '
        . ($set === null ? 'was granted' : 'was refused (the key still held by the released lease)');
    fwrite($sock, release_cmd('eval', 'first', $script, $sha));      // the retry by EVAL, one round trip later
    reply($sock);
    return [$shipped, $byEvalsha];
}

/** One measurement. @return array<string, float|string> */
function measure(string $variant, Server $s, int $n, string $script, string $sha): array
{
    [$loop, $settle] = prepare($variant, $s, $script, $sha);
    $cpu0 = $s->cpuUs();
    $s->reset();
    $c0 = cpu_us();
    $t0 = hrtime(true);
    $loop($n);
    $t1 = hrtime(true);
    $c1 = cpu_us();
    usleep(20000);   // distlock's last release is written, not awaited: let the server run it
    $st = $s->read();
    $cpu1 = $s->cpuUs();
    $settle();
    $sent = [];
    $cmdUs = 0;
    foreach ($st['cmds'] as $cmd => [$calls, $usec]) {
        $cmdUs += $usec;
        if (in_array($cmd, ['eval', 'evalsha', 'delex'], true)) $sent[] = strtoupper($cmd) . ' ' . fmt($calls / $n, 2);
    }
    $rel = str_starts_with($variant, 'evalsha') ? 'evalsha' : ($variant === 'native' ? 'delex' : 'eval');
    [$rcalls, $rusec] = $st['cmds'][$rel] ?? [0, 0];
    return [
        'sent' => implode(', ', $sent),
        'client_us' => ($t1 - $t0) / 1e3 / $n,
        'client_cpu_us' => ($c1 - $c0) / $n,
        'server_cpu_us' => ($cpu1 - $cpu0) / $n,
        'usec_per_call' => $rcalls ? $rusec / $rcalls : NAN,
        'cmd_us' => $cmdUs / $n,
        'reads' => $st['reads'] / $n,
        'writes' => $st['writes'] / $n,
        'in' => $st['in'] / $n,
        'out' => $st['out'] / $n,
    ];
}

[$SCRIPT, $SHA] = Bench\release_script();
$tok = str_repeat('0', 32);
$REQ = [
    'distlock' => strlen(release_cmd('eval', $tok, $SCRIPT, $SHA)),
    'eval' => strlen(release_cmd('eval', $tok, $SCRIPT, $SHA)),
    'evalsha' => strlen(release_cmd('evalsha', $tok, $SCRIPT, $SHA)),
    'eval 1w' => strlen(release_cmd('eval', $tok, $SCRIPT, $SHA)),
    'evalsha 1w' => strlen(release_cmd('evalsha', $tok, $SCRIPT, $SHA)),
    'native' => strlen(release_cmd('native', $tok, $SCRIPT, $SHA)),
];
$servers = [];
try {
    foreach ($bins as $i => $bin) $servers[] = new Server($bin, $PORT + $i, $SERVER_CPU);
    $res = [];
    for ($run = 0; $run < $RUNS; $run++) {
        foreach ($servers as $s) {
            $variants = ['distlock', 'eval', 'evalsha', 'eval 1w', 'evalsha 1w'];
            if ($s->delex) $variants[] = 'native';
            foreach (Bench\rotate($variants, $run) as $v) {
                progress("run " . ($run + 1) . "/$RUNS: Redis {$s->version}, $v");
                $res[$s->port][$v][] = measure($v, $s, $CYCLES, $SCRIPT, $SHA);
            }
        }
    }
    $flush = [];
    foreach ($servers as $s) $flush[$s->port] = after_flush($s, $SCRIPT, $SHA);
} finally {
    foreach ($servers as $s) $s->shutdown();
}

$load = sys_getloadavg();
printf("--pin=%s. %d cycles a run, %d runs, medians (lowest–highest run). Release script: %d bytes, SHA1 %s. "
    . "PHP %s, phpredis %s, distlock %s, load average at the end %.2f.\n\n", $PIN, $CYCLES, $RUNS, strlen($SCRIPT),
    $SHA, PHP_VERSION, phpversion('redis'), phpversion('distlock'), $load[0]);
$range = fn (array $xs, int $dec = 1) => fmt(median($xs), $dec) . ' (' . fmt(min($xs), $dec) . '–' . fmt(max($xs), $dec) . ')';
foreach ($servers as $s) {
    echo "### Redis {$s->version}\n\n";
    $rows = [];
    $order = ['distlock', 'eval', 'evalsha', 'eval 1w', 'evalsha 1w', 'native'];
    foreach (array_intersect($order, array_keys($res[$s->port])) as $v) {
        $col = fn (string $k) => array_column($res[$s->port][$v], $k);
        $rows[] = [$v, $res[$s->port][$v][0]['sent'], (string) $REQ[$v], $range($col('client_us')),
            $range($col('client_cpu_us')), $range($col('server_cpu_us')), fmt(median($col('server_cpu_us')) * 10, 0),
            fmt(median($col('usec_per_call')), 2), fmt(median($col('cmd_us')), 2),
            fmt(median($col('reads')), 2) . ' / ' . fmt(median($col('writes')), 2),
            fmt(median($col('in')), 1), fmt(median($col('out')), 1)];
    }
    echo table(['variant', 'release sent / cycle', 'request B', 'client µs', 'client CPU µs', 'server CPU µs',
        'server ms / 10k', 'usec_per_call', 'cmd µs', 'reads / writes', 'bytes in', 'bytes out'], $rows), "\n";
    foreach ([['eval', 'evalsha'], ['eval 1w', 'evalsha 1w']] as [$a, $b]) {
        // Paired by run: the two measurements of one run are closest in time.
        $d = $dc = [];
        foreach ($res[$s->port][$a] as $i => $e) {
            $d[] = $e['server_cpu_us'] - $res[$s->port][$b][$i]['server_cpu_us'];
            $dc[] = $e['client_us'] - $res[$s->port][$b][$i]['client_us'];
        }
        printf("%s − %s, paired by run: server CPU %s µs a release (%s ms per 10k), client %s µs, bytes in %s.\n\n",
            $a, $b, $range($d, 2), fmt(median($d) * 10, 1), $range($dc, 2),
            fmt(median(array_column($res[$s->port][$a], 'in')) - median(array_column($res[$s->port][$b], 'in')), 1));
    }
    [$shipped, $byEvalsha] = $flush[$s->port];
    echo "After SCRIPT FLUSH, a release written and not awaited, then the name taken again at once: as shipped, "
        . "$shipped; by EVALSHA, $byEvalsha.\n\n";
}
