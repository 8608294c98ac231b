<?php
declare(strict_types=1);

namespace Bench;

/** @param list<float|int> $xs */
/*
 * Warnings and notices become exceptions (a benchmark must not go on with a
 * broken peer); deprecations are off: Laravel 8 and Symfony 5.4 raise them on PHP 8.2.
 */
function errors_are_exceptions(): void
{
    error_reporting(E_ALL & ~E_DEPRECATED & ~E_USER_DEPRECATED);
    set_error_handler(function (int $no, string $str, string $file, int $line): bool {
        if (!(error_reporting() & $no)) {
            return false; // silenced with @
        }
        throw new \ErrorException($str, 0, $no, $file, $line);
    });
}

function median(array $xs): float
{
    if (!$xs) {
        return NAN;
    }
    sort($xs);
    $n = count($xs);
    return $n % 2 ? (float) $xs[intdiv($n, 2)] : ($xs[$n / 2 - 1] + $xs[$n / 2]) / 2;
}

/** Nearest-rank percentile, $p in (0, 100]. @param list<float|int> $xs */
function pct(array $xs, float $p): float
{
    if (!$xs) {
        return NAN;
    }
    sort($xs);
    $k = (int) ceil($p / 100 * count($xs));
    return (float) $xs[max(0, min(count($xs) - 1, $k - 1))];
}

function cpu_us(): float
{
    $ru = getrusage();
    return $ru['ru_utime.tv_sec'] * 1e6 + $ru['ru_utime.tv_usec'] + $ru['ru_stime.tv_sec'] * 1e6 + $ru['ru_stime.tv_usec'];
}

/** Rotates a list by $k places (the round-by-round order of implementations). */
function rotate(array $xs, int $k): array
{
    $xs = array_values($xs);
    $n = count($xs);
    if ($n === 0) {
        return $xs;
    }
    $k %= $n;
    return array_merge(array_slice($xs, $k), array_slice($xs, 0, $k));
}

function fmt(float $x, int $dec = 1): string
{
    if (is_nan($x)) {
        return '-';
    }
    return number_format($x, $dec, '.', '');
}

/** Milliseconds from microseconds, adaptive precision. */
function ms(float $us): string
{
    if (is_nan($us)) {
        return '-';
    }
    $m = $us / 1000;
    return $m < 10 ? number_format($m, 2, '.', '') : ($m < 100 ? number_format($m, 1, '.', '') : number_format($m, 0, '.', ''));
}

/** @param list<string> $head @param list<list<string>> $rows */
function table(array $head, array $rows): string
{
    $out = '| ' . implode(' | ', $head) . " |\n";
    $out .= '|' . implode('|', array_map(fn ($h) => ' --- ', $head)) . "|\n";
    foreach ($rows as $r) {
        $out .= '| ' . implode(' | ', $r) . " |\n";
    }
    return $out;
}

function progress(string $msg): void
{
    fwrite(STDERR, '[bench ' . date('H:i:s') . '] ' . $msg . "\n");
}

/** Ends a forked child at once: no destructors, no shutdown functions, nothing written to inherited sockets. */
function child_exit(): never
{
    posix_kill(posix_getpid(), SIGKILL);
    exit(0);
}

/** A connected pair of stream sockets (a pipe both ends can use). @return array{0:resource,1:resource} */
function pair(): array
{
    $p = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
    if ($p === false) {
        throw new \RuntimeException('stream_socket_pair failed');
    }
    // Unbuffered: several processes read one byte each from the same end; a
    // buffered fread(1) would swallow the bytes meant for the others.
    stream_set_read_buffer($p[0], 0);
    stream_set_read_buffer($p[1], 0);
    return $p;
}

/** Reads exactly $n bytes or returns null when $timeout seconds pass first. @param resource $s */
function read_exact($s, int $n, float $timeout): ?string
{
    $buf = '';
    $deadline = microtime(true) + $timeout;
    while (strlen($buf) < $n) {
        $left = $deadline - microtime(true);
        if ($left <= 0) {
            return null;
        }
        $r = [$s];
        $w = $e = null;
        $sec = (int) $left;
        $k = @stream_select($r, $w, $e, $sec, (int) (($left - $sec) * 1e6));
        if ($k === false) {
            continue; // EINTR (SIGCHLD)
        }
        if ($k === 0) {
            continue;
        }
        $chunk = fread($s, $n - strlen($buf));
        if ($chunk === false || ($chunk === '' && feof($s))) {
            return null;
        }
        $buf .= $chunk;
    }
    return $buf;
}
