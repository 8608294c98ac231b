<?php
/*
 * The nemesis's TCP proxy between the workers and one redis-server (loopback only):
 *
 *   php proxy.php UPSTREAM_PORT      prints its own port on the first line of stdout
 *
 * Started from bench/lib/DelayProxy.php's loop (FIFO forwarding with TCP_NODELAY),
 * with modes read from stdin, one command a line:
 *   normal        forward at once (what has been held goes out now, in order)
 *   delay MS      hold every chunk MS milliseconds, each direction
 *   stall         hold everything (nothing is lost: a command sent now runs at the
 *                 server when the stall ends, even if its client gave up, as a
 *                 packet stuck in a network does)
 *   reset         close every connection with a TCP RST (SO_LINGER 0), both sides
 *   refuse        accept new connections and reset them at once (until "normal")
 * EOF on stdin ends the proxy.
 */
declare(strict_types=1);

$upstream = (int) $argv[1];
pcntl_signal(SIGPIPE, SIG_IGN);    // a write to a connection its client closed must not end the proxy
$srv = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
if (!$srv) {
    fwrite(STDERR, "proxy: $errstr\n");
    exit(1);
}
$name = (string) stream_socket_get_name($srv, false);
echo substr($name, strrpos($name, ':') + 1), "\n";
fflush(STDOUT);
stream_set_blocking(STDIN, false);

function sock_opt($stream, int $level, int $opt, $val): void
{
    $s = @socket_import_stream($stream);
    if ($s !== false && $s !== null) {
        @socket_set_option($s, $level, $opt, $val);
    }
}

function close($stream): void
{
    if (is_resource($stream)) {
        fclose($stream);
    }
}

function rst($stream): void
{
    if (is_resource($stream)) {
        sock_opt($stream, SOL_SOCKET, SO_LINGER, ['l_onoff' => 1, 'l_linger' => 0]);
        fclose($stream);
    }
}

$peer = [];    // (int) stream => stream it forwards to
$socks = [];   // (int) stream => stream
$queue = [];   // FIFO of [due_ns, to, data|null (null: close "to" after what came before)]
$mode = 'normal';
$delayNs = 0;
$ctl = '';

$drop = function ($s) use (&$socks, &$peer): void {
    $o = $peer[(int) $s] ?? null;
    unset($socks[(int) $s], $peer[(int) $s]);
    close($s);
    if ($o !== null) {
        unset($socks[(int) $o], $peer[(int) $o]);
        close($o);
    }
};

while (true) {
    $now = hrtime(true);
    while ($queue && $queue[0][0] <= $now) {
        [, $to, $data] = array_shift($queue);
        if (!isset($socks[(int) $to])) {
            continue;
        }
        if ($data === null) {
            $drop($to);
            continue;
        }
        stream_set_blocking($to, true);    // a slow reader must not lose bytes
        @fwrite($to, $data);
        stream_set_blocking($to, false);
    }
    $wait = 100000;
    if ($queue && $queue[0][0] !== PHP_INT_MAX) {
        $wait = max(0, min($wait, intdiv($queue[0][0] - hrtime(true), 1000)));
    }
    $read = array_values($socks);
    $read[] = $srv;
    $read[] = STDIN;
    $w = $e = null;
    if (@stream_select($read, $w, $e, 0, $wait) < 1) {
        continue;
    }
    foreach ($read as $s) {
        if ($s === STDIN) {
            $chunk = fread(STDIN, 4096);
            if ($chunk === '' && feof(STDIN)) {
                exit(0);
            }
            $ctl .= $chunk;
            while (($p = strpos($ctl, "\n")) !== false) {
                $cmd = explode(' ', trim(substr($ctl, 0, $p)));
                $ctl = substr($ctl, $p + 1);
                switch ($cmd[0]) {
                    case 'normal':
                    case 'delay':
                        $mode = $cmd[0];
                        $delayNs = $cmd[0] === 'delay' ? (int) $cmd[1] * 1000000 : 0;
                        $t = hrtime(true);
                        foreach ($queue as &$q) {    // what a stall held goes out now, in order
                            if ($q[0] === PHP_INT_MAX) {
                                $q[0] = $t;
                            }
                        }
                        unset($q);
                        break;
                    case 'stall':
                        $mode = 'stall';
                        break;
                    case 'reset':
                    case 'refuse':
                        foreach ($socks as $x) {
                            rst($x);
                        }
                        $socks = $peer = $queue = [];
                        $mode = $cmd[0] === 'refuse' ? 'refuse' : 'normal';
                        break;
                }
            }
            continue;
        }
        if ($s === $srv) {
            $c = @stream_socket_accept($srv, 1);
            if (!$c) {
                continue;
            }
            if ($mode === 'refuse') {
                rst($c);
                continue;
            }
            $u = @stream_socket_client("tcp://127.0.0.1:$upstream", $errno, $errstr, 2);
            if (!$u) {
                rst($c);    // the server is down: the client sees a reset, as without a proxy it would see a refusal
                continue;
            }
            foreach ([$c, $u] as $x) {
                sock_opt($x, SOL_TCP, TCP_NODELAY, 1);
                stream_set_blocking($x, false);
                $socks[(int) $x] = $x;
            }
            $peer[(int) $c] = $u;
            $peer[(int) $u] = $c;
            continue;
        }
        if (!isset($socks[(int) $s])) {
            continue;
        }
        $data = @fread($s, 65536);
        $due = match ($mode) { 'stall' => PHP_INT_MAX, 'delay' => hrtime(true) + $delayNs, default => hrtime(true) };
        if ($data === '' || $data === false) {
            if (feof($s)) {
                // the other side is closed after what was sent before the EOF
                unset($socks[(int) $s]);
                close($s);
                $queue[] = [$due, $peer[(int) $s], null];
            }
            continue;
        }
        $queue[] = [$due, $peer[(int) $s], $data];
    }
}
