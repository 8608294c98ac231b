<?php
/*
 * tests/deadlock/stress.php — the deadlock suite's workload (issue 47; run by
 * tests/deadlock/run.sh, checked by tests/deadlock/check.php).
 *
 * usage: php -d extension=distlock.so stress.php --uri=redis://127.0.0.1:PORT --out=DIR
 *            [--workers=8] [--seconds=20] [--names=4] [--detection=1] [--seed=N]
 *
 * Forks --workers processes. Each, until --seconds have passed, takes 2
 * distinct of --names names in random order: lock(first, 10, 5), then
 * lock(second, 10, 5); in the critical section a read, a 0-2 ms sleep and a
 * write of each name's counter (a plain RESP connection of its own, not the
 * extension: a lost update shows as two critical sections that read the same
 * value); then both released in random order. On DeadlockException it
 * releases the first and redoes the pair after 0-20 ms; a plain
 * LockTimeoutException is recorded (and what it held released).
 *
 * Each worker writes DIR/worker-<pid>.jsonl, one JSON object a line, times
 * from hrtime(true) (CLOCK_MONOTONIC: one clock for every process on Linux):
 *   {"ev":"lock","name":N,"call":T,"ret":T,"out":"ok|deadlock|timeout|error","msg":M,"holds":[..]}
 *   {"ev":"release","name":N,"call":T,"ret":T,"ok":true|false}
 *   {"ev":"cs","names":[..],"read":{name:value},"t0":T,"t1":T}
 *   {"ev":"end","stats":{..}}     (the worker's stats() when it is done)
 * The parent writes DIR/run.json: the workers' pids and exit statuses, the
 * counters' final values and the run's start and end.
 */
declare(strict_types=1);

$opt = getopt('', ['uri:', 'out:', 'workers:', 'seconds:', 'names:', 'detection:', 'seed:']);
$uri = $opt['uri'] ?? null;
$out = $opt['out'] ?? null;
if (!$uri || !$out) {
    fwrite(STDERR, "usage: stress.php --uri=redis://127.0.0.1:PORT --out=DIR [--workers=8] [--seconds=20] [--names=4] [--detection=1] [--seed=N]\n");
    exit(2);
}
$workers = (int)($opt['workers'] ?? 8);
$seconds = (float)($opt['seconds'] ?? 20);
$nnames = (int)($opt['names'] ?? 4);
$detection = (int)($opt['detection'] ?? 1) === 1;
$seed = (int)($opt['seed'] ?? random_int(1, PHP_INT_MAX));
$names = [];
for ($i = 0; $i < $nnames; $i++) $names[] = "n$i";
if (!class_exists('DistLock')) {
    fwrite(STDERR, "stress.php: the distlock extension is not loaded\n");
    exit(2);
}
@mkdir($out, 0777, true);
[$host, $port] = (function (string $uri): array {
    $u = parse_url($uri);
    return [$u['host'] ?? '127.0.0.1', (int)($u['port'] ?? 6379)];
})($uri);

/* A minimal RESP client: the counters' path, independent of the extension. */
final class Resp
{
    private $s;
    public function __construct(string $host, int $port)
    {
        $this->s = stream_socket_client("tcp://$host:$port", $errno, $errstr, 5);
        if (!$this->s) throw new RuntimeException("counter connection: $errstr");
        stream_set_timeout($this->s, 10);
    }
    public function call(string ...$args)
    {
        $cmd = '*' . count($args) . "\r\n";
        foreach ($args as $a) $cmd .= '$' . strlen($a) . "\r\n" . $a . "\r\n";
        if (fwrite($this->s, $cmd) !== strlen($cmd)) throw new RuntimeException('counter connection: short write');
        return $this->read();
    }
    private function read()
    {
        $line = fgets($this->s);
        if ($line === false) throw new RuntimeException('counter connection: no reply');
        $line = substr($line, 0, -2);
        switch ($line[0]) {
            case '+': return substr($line, 1);
            case '-': throw new RuntimeException('counter connection: ' . substr($line, 1));
            case ':': return (int)substr($line, 1);
            case '$':
                $n = (int)substr($line, 1);
                if ($n < 0) return null;
                $data = '';
                while (strlen($data) < $n + 2) {
                    $chunk = fread($this->s, $n + 2 - strlen($data));
                    if ($chunk === false || $chunk === '') throw new RuntimeException('counter connection: short read');
                    $data .= $chunk;
                }
                return substr($data, 0, $n);
            case '*':
                $n = (int)substr($line, 1);
                $r = [];
                for ($i = 0; $i < $n; $i++) $r[] = $this->read();
                return $r;
        }
        throw new RuntimeException("counter connection: unexpected reply $line");
    }
}

function worker(string $uri, string $host, int $port, array $names, int $end_ns, bool $detection, int $seed, string $file): int
{
    mt_srand($seed);
    $log = fopen($file, 'w');
    $w = function (array $rec) use ($log) { fwrite($log, json_encode($rec, JSON_UNESCAPED_SLASHES) . "\n"); };
    $dl = new DistLock($uri, ['deadlock_detection' => $detection]);
    $r = new Resp($host, $port);
    $held = [];   // name => DistLock\Lock

    $lock = function (string $name) use ($dl, $w, &$held) {
        $holds = array_keys($held);
        $call = hrtime(true);
        try {
            $l = $dl->lock($name, 10, 5);
            $ret = hrtime(true);
            $w(['ev' => 'lock', 'name' => $name, 'call' => $call, 'ret' => $ret, 'out' => 'ok', 'holds' => $holds]);
            $held[$name] = $l;
            return 'ok';
        } catch (DistLock\DeadlockException $e) {
            $ret = hrtime(true);
            $w(['ev' => 'lock', 'name' => $name, 'call' => $call, 'ret' => $ret, 'out' => 'deadlock', 'msg' => $e->getMessage(), 'holds' => $holds]);
            return 'deadlock';
        } catch (DistLock\LockTimeoutException $e) {
            $ret = hrtime(true);
            $w(['ev' => 'lock', 'name' => $name, 'call' => $call, 'ret' => $ret, 'out' => 'timeout', 'msg' => $e->getMessage(), 'holds' => $holds]);
            return 'timeout';
        } catch (Throwable $e) {
            $ret = hrtime(true);
            $w(['ev' => 'lock', 'name' => $name, 'call' => $call, 'ret' => $ret, 'out' => 'error', 'msg' => get_class($e) . ': ' . $e->getMessage(), 'holds' => $holds]);
            return 'error';
        }
    };
    $release = function (string $name) use ($w, &$held) {
        $l = $held[$name];
        $call = hrtime(true);
        try {
            $ok = $l->release();
            $msg = null;
        } catch (Throwable $e) {
            $ok = false;
            $msg = get_class($e) . ': ' . $e->getMessage();
        }
        $ret = hrtime(true);
        unset($held[$name]);
        $w(['ev' => 'release', 'name' => $name, 'call' => $call, 'ret' => $ret, 'ok' => $ok] + ($msg === null ? [] : ['msg' => $msg]));
    };
    $release_all = function () use (&$held, $release) {
        $order = array_keys($held);
        shuffle($order);
        foreach ($order as $n) $release($n);
    };

    while (hrtime(true) < $end_ns) {
        $pick = $names;
        shuffle($pick);
        [$first, $second] = [$pick[0], $pick[1]];
        for ($redo = 0; hrtime(true) < $end_ns; $redo++) {
            if ($lock($first) !== 'ok') break;
            $o = $lock($second);
            if ($o === 'deadlock') {
                $release_all();
                usleep(mt_rand(0, 20000));
                continue;   // the same pair again
            }
            if ($o === 'ok') {
                // the critical section: read both counters, 0-2 ms, write both
                $t0 = hrtime(true);
                $read = [];
                foreach ([$first, $second] as $n) {
                    $v = $r->call('GET', "cnt:$n");
                    $read[$n] = $v === null ? 0 : (int)$v;
                }
                usleep(mt_rand(0, 2000));
                foreach ($read as $n => $v) $r->call('SET', "cnt:$n", (string)($v + 1));
                $t1 = hrtime(true);
                $w(['ev' => 'cs', 'names' => [$first, $second], 'read' => $read, 't0' => $t0, 't1' => $t1]);
            }
            $release_all();
            break;
        }
        $release_all();
    }
    $w(['ev' => 'end', 'stats' => $dl->stats()]);
    fclose($log);
    return 0;
}

$t_start = hrtime(true);
$end_ns = $t_start + (int)($seconds * 1e9);
$kids = [];
for ($i = 0; $i < $workers; $i++) {
    $pid = pcntl_fork();
    if ($pid < 0) {
        fwrite(STDERR, "stress.php: fork failed\n");
        foreach ($kids as $k => $_) posix_kill($k, SIGKILL);
        exit(1);
    }
    if ($pid === 0) {
        $me = getmypid();
        try {
            $rc = worker($uri, $host, $port, $names, $end_ns, $detection, $seed + $i, "$out/worker-$me.jsonl");
        } catch (Throwable $e) {
            fwrite(STDERR, "worker $me: " . get_class($e) . ': ' . $e->getMessage() . "\n");
            $rc = 1;
        }
        exit($rc);
    }
    $kids[$pid] = null;
}
// A bound: no worker may outlast the run by more than 60 s (two 5 s waits and a release take far less).
$deadline = $end_ns + 60 * 1000000000;
while (in_array(null, $kids, true)) {
    $pid = pcntl_waitpid(-1, $status, WNOHANG);
    if ($pid > 0) {
        $kids[$pid] = pcntl_wifexited($status) ? pcntl_wexitstatus($status) : 128 + pcntl_wtermsig($status);
        continue;
    }
    if (hrtime(true) > $deadline) {
        foreach ($kids as $k => $st) if ($st === null) { posix_kill($k, SIGKILL); }
        fwrite(STDERR, "stress.php: workers still running 60 s after the end: killed\n");
        $deadline = PHP_INT_MAX;
    }
    usleep(20000);
}
$t_end = hrtime(true);
$r = new Resp($host, $port);
$counters = [];
foreach ($names as $n) {
    $v = $r->call('GET', "cnt:$n");
    $counters[$n] = $v === null ? 0 : (int)$v;
}
file_put_contents("$out/run.json", json_encode([
    'workers' => $kids, 'counters' => $counters, 'start' => $t_start, 'end' => $t_end, 'seconds' => $seconds,
    'detection' => $detection, 'seed' => $seed, 'names' => $names,
], JSON_PRETTY_PRINT) . "\n");
printf("stress: %d workers, %s s, detection %s, seed %d: done in %.1f s\n", $workers, $seconds, $detection ? 'on' : 'off', $seed, ($t_end - $t_start) / 1e9);
exit(in_array(0, $kids, true) && count(array_filter($kids, fn($s) => $s !== 0)) === 0 ? 0 : 1);
