<?php
declare(strict_types=1);

namespace Bench;

/**
 * A TCP proxy that delays every chunk by a fixed time in each direction, so
 * that a benchmark on loopback sees a round trip like a Redis in another zone
 * (this machine has no tc netem). It runs in a forked child and ends with the
 * benchmark (or after an hour). Added latency = 2 × $delayUs per round trip,
 * plus the proxy's own forwarding cost, which every implementation pays alike.
 */
final class DelayProxy
{
    public int $port;
    private int $pid;

    public function __construct(private string $host, private int $upstreamPort, private int $delayUs)
    {
        $srv = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
        if (!$srv) {
            throw new \RuntimeException("delay proxy: $errstr");
        }
        $name = (string) stream_socket_get_name($srv, false);
        $this->port = (int) substr($name, strrpos($name, ':') + 1);
        $pid = pcntl_fork();
        if ($pid < 0) {
            throw new \RuntimeException('delay proxy: fork failed');
        }
        if ($pid === 0) {
            $this->loop($srv);
            exit(0);
        }
        fclose($srv);
        $this->pid = $pid;
    }

    public function __destruct()
    {
        if (isset($this->pid)) {
            posix_kill($this->pid, SIGTERM);
            pcntl_waitpid($this->pid, $st);
        }
    }

    /**
     * TCP_NODELAY, as Redis and hiredis set on theirs: without it two small
     * writes within a round trip meet Nagle's algorithm and the peer's delayed
     * ACK (tens of ms), which no real Redis connection pays.
     */
    private static function noDelay($stream): void
    {
        if (!function_exists('socket_import_stream')) {
            throw new \RuntimeException('delay proxy: the sockets extension is needed for TCP_NODELAY');
        }
        $sock = socket_import_stream($stream);
        if ($sock === false || !socket_set_option($sock, SOL_TCP, TCP_NODELAY, 1)) {
            throw new \RuntimeException('delay proxy: cannot set TCP_NODELAY');
        }
    }

    /** Forwards each chunk after $delayUs, in order per direction. */
    private function loop($srv): void
    {
        $peer = [];    // (int) stream => the stream it forwards to
        $socks = [];   // (int) stream => stream
        $queue = [];   // list of [due_ns, to, data], due times in order
        $delayNs = $this->delayUs * 1000;
        $end = hrtime(true) + 3600 * 1000000000;
        while (hrtime(true) < $end) {
            $now = hrtime(true);
            while ($queue && $queue[0][0] <= $now) {
                [, $to, $data] = array_shift($queue);
                if (isset($socks[(int) $to])) {
                    @fwrite($to, $data);
                }
            }
            $wait = $queue ? max(0, intdiv($queue[0][0] - hrtime(true), 1000)) : 100000;
            $read = array_values($socks);
            $read[] = $srv;
            $w = $e = null;
            if (@stream_select($read, $w, $e, 0, $wait) < 1) {
                continue;
            }
            foreach ($read as $s) {
                if ($s === $srv) {
                    $c = @stream_socket_accept($srv, 1);
                    $u = @stream_socket_client("tcp://{$this->host}:{$this->upstreamPort}", $errno, $errstr, 2);
                    if ($c && $u) {
                        self::noDelay($c);
                        self::noDelay($u);
                        stream_set_blocking($c, false);
                        stream_set_blocking($u, false);
                        $socks[(int) $c] = $c; $socks[(int) $u] = $u;
                        $peer[(int) $c] = $u; $peer[(int) $u] = $c;
                    }
                    continue;
                }
                $data = @fread($s, 65536);
                if ($data === '' || $data === false) {
                    if (feof($s)) {
                        $o = $peer[(int) $s];
                        unset($socks[(int) $s], $socks[(int) $o], $peer[(int) $s], $peer[(int) $o]);
                        @fclose($s); @fclose($o);
                    }
                    continue;
                }
                $queue[] = [hrtime(true) + $delayNs, $peer[(int) $s], $data];
            }
        }
    }
}
