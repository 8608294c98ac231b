<?php
declare(strict_types=1);

namespace Nemesis;

/**
 * A free loopback port for a server, from 10000 to 19999: free when chosen,
 * and so is the port 10000 above it (a cluster node's bus port), which lies
 * from 20000 to 29999, below the kernel's ephemeral range (32768 and up by
 * default: net.ipv4.ip_local_port_range) as its own port does. A port the
 * kernel hands out for port 0, or in that range, can be taken by a client
 * connection's local end before the server binds it, and the campaign opens
 * thousands of connections: a sentinel master's port and a cluster node's bus
 * port failed with "Address already in use" that way.
 */
function free_port(): int
{
    for ($try = 0; $try < 500; $try++) {
        $port = random_int(10000, 19999);
        $s = @stream_socket_server("tcp://127.0.0.1:$port", $errno, $errstr);
        if ($s === false) {
            continue;
        }
        $bus = @stream_socket_server('tcp://127.0.0.1:' . ($port + 10000), $errno, $errstr);
        fclose($s);
        if ($bus !== false) {
            fclose($bus);
            return $port;
        }
    }
    throw new \RuntimeException('free_port: no free port (and bus port) in 10000-19999');
}

/** Sets (with an argument) and returns the tag log_line() puts after the time, e.g. " lane 2". */
function log_tag(?string $tag = null): string
{
    static $t = '';
    if ($tag !== null) {
        $t = $tag;
    }
    return $t;
}

function log_line(string $msg): void
{
    fwrite(STDERR, sprintf("[nemesis %s%s] %s\n", gmdate('H:i:s'), log_tag(), $msg));
}

/**
 * One redis-server (or sentinel) started by the campaign, on 127.0.0.1 only.
 * Only these processes are ever signalled.
 */
final class Server
{
    public int $port;
    public int $pid = 0;
    private $proc = null;

    /** @param list<string> $args after the binary; @param array<string,string> $env extra environment */
    public function __construct(public string $name, private string $bin, private string $dir, private array $args,
                                private array $env = [], ?int $port = null)
    {
        $this->port = $port ?? free_port();
        @mkdir($dir, 0777, true);
    }

    /** @param list<string> $extra arguments for this start only (e.g. --replicaof) */
    public function start(float $timeout = 20.0, array $extra = []): void
    {
        $this->launch($extra);
        $this->waitUp($timeout);
    }

    /** Starts the process without waiting for it to answer (see waitUp()): servers of a topology start side by side. */
    public function launch(array $extra = []): void
    {
        $cmd = array_merge([$this->bin], $this->args, $extra, ['--port', (string) $this->port, '--bind', '127.0.0.1',
            '--daemonize', 'no', '--dir', $this->dir, '--logfile', $this->dir . '/server.log']);
        $env = $this->env + ['PATH' => (string) getenv('PATH')];
        $this->proc = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', $this->dir . '/stderr.log', 'a']],
            $pipes, $this->dir, $env);
        if (!is_resource($this->proc)) {
            throw new \RuntimeException("$this->name: cannot start $this->bin");
        }
        $this->pid = proc_get_status($this->proc)['pid'];
    }

    /** Waits until the launched server answers PING (polled every 20 ms). */
    public function waitUp(float $timeout = 20.0): void
    {
        $end = microtime(true) + $timeout;
        while (microtime(true) < $end) {
            if ($this->proc === null || !proc_get_status($this->proc)['running']) {
                break;
            }
            if ($this->ping()) {
                return;
            }
            usleep(20000);
        }
        $tail = @shell_exec('tail -n 5 ' . escapeshellarg($this->dir . '/server.log') . ' 2>/dev/null');
        throw new \RuntimeException("$this->name: redis-server on 127.0.0.1:$this->port did not come up: $tail");
    }

    public function ping(): bool
    {
        try {
            $r = new \Redis();
            if (!@$r->connect('127.0.0.1', $this->port, 0.3)) {
                return false;
            }
            $r->setOption(\Redis::OPT_READ_TIMEOUT, 0.5);
            return $r->ping() !== false;
        } catch (\Throwable) {
            return false;
        }
    }

    public function signal(int $sig): void
    {
        if ($this->pid > 0 && $this->running()) {
            posix_kill($this->pid, $sig);
        }
    }

    public function running(): bool
    {
        return $this->proc !== null && proc_get_status($this->proc)['running'];
    }

    /** kill -9 and reap. */
    public function crash(): void
    {
        if ($this->proc === null) {
            return;
        }
        $this->signal(SIGCONT);
        $this->signal(SIGKILL);
        proc_close($this->proc);
        $this->proc = null;
        $this->pid = 0;
    }

    /** Asks the server to exit (SIGTERM) without waiting: stop() then reaps it. */
    public function terminate(): void
    {
        $this->signal(SIGCONT);
        $this->signal(SIGTERM);
    }

    public function stop(): void
    {
        if ($this->proc === null) {
            return;
        }
        $this->terminate();
        $end = microtime(true) + 5;
        while ($this->running() && microtime(true) < $end) {
            usleep(10000);
        }
        $this->crash();
    }

    public function redis(float $timeout = 1.0): \Redis
    {
        $r = new \Redis();
        $r->connect('127.0.0.1', $this->port, $timeout);
        $r->setOption(\Redis::OPT_READ_TIMEOUT, $timeout);
        return $r;
    }

    /** Deletes the data files (a restart "without persistence"). */
    public function wipe(): void
    {
        foreach (['appendonlydir', 'dump.rdb', 'appendonly.aof'] as $f) {
            $p = $this->dir . '/' . $f;
            if (is_dir($p)) {
                array_map('unlink', glob("$p/*") ?: []);
                @rmdir($p);
            } elseif (file_exists($p)) {
                @unlink($p);
            }
        }
    }
}

/**
 * The campaign's servers: one topology at a time for the workers, plus the
 * resource server. $bin: redis-server (Debian's) and $fakeBin: a server built
 * with the libc allocator, run under libfaketime for the clock jumps.
 */
final class Topology
{
    /** @var list<Server> */
    public array $servers = [];
    public array $topo = [];          // what the workers get (see DistLockLib)
    public ?Server $main = null;      // single: the server
    public $proxy = null;             // single: the proxy process
    public array $proxyPipes = [];
    public int $proxyPort = 0;
    public string $clockFile = '';
    public int $clockOffset = 0;
    /** @var list<Server> */
    public array $masters = [];        // redlock / cluster masters
    public ?Server $replica = null;
    /** @var list<Server> */
    public array $sentinels = [];

    public function __construct(public string $kind, private string $dir, private string $bin, private ?string $fakeBin,
                                private ?string $fakeLib, private string $cli)
    {
        @mkdir($dir, 0777, true);
    }

    public function start(array $opts = []): void
    {
        match ($this->kind) {
            'single' => $this->startSingle(),
            'sentinel' => $this->startSentinel($opts),
            'cluster' => $this->startCluster(),
            'redlock' => $this->startRedlock(),
        };
    }

    private function add(Server $s): Server
    {
        $this->servers[] = $s;
        $s->start();
        return $s;
    }

    /** Launches a server of the topology without waiting for it (waitAllUp() does). */
    private function launchServer(Server $s): Server
    {
        $this->servers[] = $s;
        $s->launch();
        return $s;
    }

    private function waitAllUp(): void
    {
        foreach ($this->servers as $s) {
            $s->waitUp();
        }
    }

    /** One server with AOF (appendfsync always), under libfaketime, behind the proxy. */
    private function startSingle(): void
    {
        $env = [];
        $bin = $this->bin;
        if ($this->fakeBin !== null && $this->fakeLib !== null) {
            $this->clockFile = $this->dir . '/faketime';
            file_put_contents($this->clockFile, "+0\n");
            $env = ['LD_PRELOAD' => $this->fakeLib, 'FAKETIME_TIMESTAMP_FILE' => $this->clockFile, 'FAKETIME_NO_CACHE' => '1'];
            $bin = $this->fakeBin;
        }
        $this->main = $this->add(new Server('single', $bin, $this->dir . '/single',
            ['--save', '', '--appendonly', 'yes', '--appendfsync', 'always'], $env));
        $this->proxy = proc_open([PHP_BINARY, __DIR__ . '/../proxy.php', (string) $this->main->port],
            [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['file', $this->dir . '/proxy.log', 'a']], $this->proxyPipes);
        $port = trim((string) fgets($this->proxyPipes[1]));
        if (!ctype_digit($port)) {
            throw new \RuntimeException('the proxy did not start: ' . @file_get_contents($this->dir . '/proxy.log'));
        }
        $this->proxyPort = (int) $port;
        $this->topo = ['kind' => 'single', 'uris' => ["redis://127.0.0.1:$this->proxyPort"], 'host' => '127.0.0.1', 'port' => $this->proxyPort];
    }

    public function proxyCmd(string $cmd): void
    {
        fwrite($this->proxyPipes[0], "$cmd\n");
        fflush($this->proxyPipes[0]);
    }

    /** Moves the faked server clock forward by $seconds (libfaketime re-reads the file: FAKETIME_NO_CACHE). */
    public function clockJump(int $seconds): void
    {
        $this->clockOffset += $seconds;
        file_put_contents($this->clockFile . '.tmp', "+{$this->clockOffset}s\n");
        rename($this->clockFile . '.tmp', $this->clockFile);
    }

    /**
     * Master + replica + three sentinels (quorum 2, down-after 1000 ms), as tests/sentinel/start.sh;
     * the sentinels start once the replica is in sync (their first INFO of the master then lists it).
     * Their hello messages go out every 0.5 s instead of 2 s (SENTINEL DEBUG publish-period, Redis
     * 7.0+), so that they find each other sooner; nothing else of Sentinel is changed.
     */
    private function startSentinel(array $opts): void
    {
        $m = $this->launchServer(new Server('master', $this->bin, $this->dir . '/master', ['--save', '', '--appendonly', 'no',
            '--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0']));
        $r = $this->launchServer(new Server('replica', $this->bin, $this->dir . '/replica', ['--save', '', '--appendonly', 'no',
            '--replicaof', '127.0.0.1', (string) $m->port, '--repl-diskless-sync-delay', '0']));
        $this->masters = [$m];
        $this->replica = $r;
        $this->waitAllUp();
        $this->waitFor(fn () => ($r->redis()->info('replication')['master_link_status'] ?? '') === 'up', 30, 'replica sync');
        for ($i = 1; $i <= 3; $i++) {
            $d = $this->dir . "/sentinel$i";
            @mkdir($d, 0777, true);
            $port = free_port();
            file_put_contents("$d/sentinel.conf", "port $port\nbind 127.0.0.1\ndaemonize no\ndir $d\n"
                . "sentinel monitor nm 127.0.0.1 $m->port 2\nsentinel down-after-milliseconds nm 1000\n"
                . "sentinel failover-timeout nm 5000\nsentinel parallel-syncs nm 1\n");
            $this->sentinels[] = $this->launchServer(new Server("sentinel$i", $this->bin, $d, ["$d/sentinel.conf", '--sentinel'], [], $port));
        }
        $this->waitAllUp();
        foreach ($this->sentinels as $s) {
            $s->redis()->rawCommand('SENTINEL', 'DEBUG', 'publish-period', '500');
        }
        $this->waitFor(function () use ($m) {
            foreach ($this->sentinels as $s) {
                $i = $s->redis()->rawCommand('SENTINEL', 'MASTER', 'nm');
                $f = [];
                for ($k = 0; $k + 1 < count($i); $k += 2) {
                    $f[$i[$k]] = $i[$k + 1];
                }
                if (($f['num-slaves'] ?? '') !== '1' || ($f['num-other-sentinels'] ?? '') !== '2' || ($f['port'] ?? '') !== (string) $m->port) {
                    return false;
                }
            }
            return true;
        }, 60, 'sentinels ready');
        $this->topo = ['kind' => 'sentinel', 'uris' => array_map(fn ($s) => "redis://127.0.0.1:$s->port", $this->sentinels),
            'options' => ['sentinel' => 'nm'] + (isset($opts['min_replicas']) ? ['min_replicas' => $opts['min_replicas'], 'replica_timeout' => 0.5] : [])];
    }

    /** The server of this topology on $port, if any. */
    public function serverAt(int $port): ?Server
    {
        foreach ($this->servers as $s) {
            if ($s->port === $port) {
                return $s;
            }
        }
        return null;
    }

    /** The master's port as the sentinels now say. */
    public function sentinelMaster(): ?int
    {
        foreach ($this->sentinels as $s) {
            try {
                $a = $s->redis(0.5)->rawCommand('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'nm');
                if (is_array($a)) {
                    return (int) $a[1];
                }
            } catch (\Throwable) {
            }
        }
        return null;
    }

    /** Six nodes, three masters with a replica each (node timeout 2000 ms), as tests/cluster/start.sh. */
    private function startCluster(): void
    {
        $nodes = [];
        for ($i = 1; $i <= 6; $i++) {
            $nodes[] = $this->launchServer(new Server("cluster$i", $this->bin, $this->dir . "/cluster$i", ['--save', '', '--appendonly', 'no',
                '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000',
                '--repl-diskless-sync-delay', '0']));
        }
        $this->waitAllUp();
        $cmd = escapeshellarg($this->cli) . ' --cluster create ' . implode(' ', array_map(fn ($s) => "127.0.0.1:$s->port", $nodes))
            . ' --cluster-replicas 1 --cluster-yes > ' . escapeshellarg($this->dir . '/cluster-create.log') . ' 2>&1';
        exec($cmd, $out, $rc);
        if ($rc !== 0) {
            throw new \RuntimeException('cluster create failed: ' . file_get_contents($this->dir . '/cluster-create.log'));
        }
        $this->waitFor(function () use ($nodes) {
            foreach ($nodes as $n) {
                $info = (string) $n->redis()->rawCommand('CLUSTER', 'INFO');
                if (!str_contains($info, 'cluster_state:ok') || !str_contains($info, 'cluster_known_nodes:6')) {
                    return false;
                }
            }
            $masters = 0;
            foreach ($nodes as $n) {
                $rep = $n->redis()->info('replication');
                if (($rep['role'] ?? '') === 'master') {
                    if (($rep['connected_slaves'] ?? 0) != 1 || !str_contains((string) ($rep['slave0'] ?? ''), 'state=online')) {
                        return false;
                    }
                    $masters++;
                }
            }
            return $masters === 3;
        }, 60, 'cluster ok');
        $this->masters = $nodes;
        $this->topo = ['kind' => 'cluster', 'uris' => array_map(fn ($s) => "redis://127.0.0.1:$s->port", $nodes), 'options' => ['cluster' => true]];
    }

    /** The node (of ours) serving $key as master now. */
    public function clusterOwner(string $key): ?Server
    {
        foreach ($this->masters as $n) {
            if (!$n->running()) {
                continue;
            }
            try {
                $r = $n->redis(0.5);
                $slot = (int) $r->rawCommand('CLUSTER', 'KEYSLOT', $key);
                foreach (explode("\n", trim((string) $r->rawCommand('CLUSTER', 'NODES'))) as $line) {
                    $f = explode(' ', $line);
                    if (!str_contains($f[2], 'master') || str_contains($f[2], 'fail')) {
                        continue;
                    }
                    for ($k = 8; $k < count($f); $k++) {
                        if ($f[$k] === '' || $f[$k][0] === '[') {
                            continue;
                        }
                        [$lo, $hi] = array_pad(explode('-', $f[$k]), 2, null);
                        if ($slot >= (int) $lo && $slot <= (int) ($hi ?? $lo)) {
                            $port = (int) substr($f[1], strrpos(explode('@', $f[1])[0], ':') + 1);
                            foreach ($this->masters as $m) {
                                if ($m->port === $port) {
                                    return $m;
                                }
                            }
                        }
                    }
                }
            } catch (\Throwable) {
            }
        }
        return null;
    }

    /** Five independent masters. */
    private function startRedlock(): void
    {
        for ($i = 1; $i <= 5; $i++) {
            $this->masters[] = $this->launchServer(new Server("redlock$i", $this->bin, $this->dir . "/redlock$i", ['--save', '', '--appendonly', 'no']));
        }
        $this->waitAllUp();
        $this->topo = ['kind' => 'redlock', 'uris' => array_map(fn ($s) => "redis://127.0.0.1:$s->port", $this->masters)];
    }

    public function waitFor(callable $cond, float $seconds, string $what): void
    {
        $end = microtime(true) + $seconds;
        while (microtime(true) < $end) {
            try {
                if ($cond()) {
                    return;
                }
            } catch (\Throwable) {
            }
            usleep(50000);
        }
        throw new \RuntimeException("timed out after {$seconds} s waiting for: $what");
    }

    public function stop(): void
    {
        if ($this->proxy !== null) {
            @fclose($this->proxyPipes[0]);
            @fclose($this->proxyPipes[1]);
            proc_close($this->proxy);
            $this->proxy = null;
        }
        foreach ($this->servers as $s) {
            $s->terminate();    // all at once, then each reaped
        }
        foreach ($this->servers as $s) {
            $s->stop();
        }
    }

    /** The servers that hold lock keys now (for the left-behind and TTL checks). */
    public function lockServers(): array
    {
        return array_values(array_filter(match ($this->kind) {
            'single' => [$this->main],
            'sentinel' => array_merge($this->masters, $this->replica ? [$this->replica] : []),
            default => $this->masters,
        }, fn ($s) => $s !== null && $s->running()));
    }
}
