<?php
/*
 * A bare RESP client for the benchmarks that must see the server without any
 * library's help (keys left, memory used): one command, one reply, as a string.
 */
declare(strict_types=1);

/** A command in RESP: an array of bulk strings. */
function resp_encode(string ...$argv): string
{
    $out = '*' . count($argv) . "\r\n";
    foreach ($argv as $a) $out .= '$' . strlen($a) . "\r\n$a\r\n";
    return $out;
}

/** Sends one command on $raw (a stream socket) and returns its reply: a bulk string's bytes, else the line after its type byte. */
function resp_cmd($raw, string ...$argv): string
{
    fwrite($raw, resp_encode(...$argv));
    $line = fgets($raw);
    if ($line[0] === '$') {
        $len = (int) substr($line, 1);
        if ($len < 0) return '';
        $s = '';
        while (strlen($s) < $len + 2) $s .= fread($raw, $len + 2 - strlen($s));
        return substr($s, 0, -2);
    }
    return rtrim(substr($line, 1));
}

/** INFO memory's used_memory, bytes. */
function resp_used_memory($raw): int
{
    preg_match('/^used_memory:(\d+)/m', resp_cmd($raw, 'INFO', 'memory'), $m);
    return (int) $m[1];
}
