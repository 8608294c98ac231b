<?php
/*
 * Keys and memory that fencing leaves on the server as the number of distinct
 * names grows (issue 30, "Fencing in bounded memory").
 *
 *   php -n -d extension=/abs/modules/distlock.so bench/fencing-keys.php --redis=127.0.0.1:PORT [--names=1000000]
 *
 * Locks and releases each of --names distinct names once with 'fencing' =>
 * true on a server of its own (it runs FLUSHALL first: never point it at a
 * server that holds anything), and prints a Markdown row every decade: names,
 * keys left (DBSIZE), used_memory, and µs per cycle. Progress on stderr.
 */
declare(strict_types=1);

require __DIR__ . '/lib/resp.php';

$opt = getopt('', ['redis:', 'names:']);
if (!isset($opt['redis'])) {
    fwrite(STDERR, "usage: php bench/fencing-keys.php --redis=HOST:PORT [--names=N]\n");
    exit(2);
}
[$host, $port] = explode(':', $opt['redis']);
$total = (int) ($opt['names'] ?? 1000000);
$raw = stream_socket_client("tcp://$host:$port", $errno, $errstr, 5) or die("connect: $errstr\n");


resp_cmd($raw, 'FLUSHALL');
$base = resp_used_memory($raw);
$locks = new DistLock("redis://$host:$port", ['prefix' => 'lock:', 'fencing' => true]);
echo "| distinct names | keys left | used_memory over empty | µs per cycle |\n|---:|---:|---:|---:|\n";
$next = 1;
$t0 = hrtime(true);
for ($i = 1; $i <= $total; $i++) {
    $l = $locks->tryLock("account:$i", 10);
    $l->release();
    if ($i === $next || $i === $total) {
        $us = (hrtime(true) - $t0) / 1e3 / $i;
        printf("| %s | %s | %s | %.1f |\n", number_format($i), number_format((int) resp_cmd($raw, 'DBSIZE')),
            number_format(resp_used_memory($raw) - $base) . ' B', $us);
        fwrite(STDERR, "$i\n");
        $next *= 10;
    }
}
