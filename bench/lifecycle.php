<?php
/*
 * Lease lifecycle figures (issue 3), appended to bench/results.md by bench/run:
 *   - 1000 leases held under the watchdog: renewal round trips and commands
 *     per renewal period, and the watchdog thread's CPU cost;
 *   - reentrant acquire cost in round trips.
 * Usage: php -d extension=.../distlock.so bench/lifecycle.php --redis=127.0.0.1:PORT [--quick]
 */
$opts = getopt('', ['redis:', 'quick']);
[$host, $port] = explode(':', $opts['redis'] ?? '127.0.0.1:6379');
$quick = isset($opts['quick']);
$uri = "redis://$host:$port";

/* INFO fields of the server, as name => value. */
function info(string $host, int $port): array {
    $s = stream_socket_client("tcp://$host:$port");
    fwrite($s, "*2\r\n$4\r\nINFO\r\n$3\r\nall\r\n");
    $len = (int)substr(fgets($s), 1);
    $body = '';
    while (strlen($body) < $len + 2) $body .= fread($s, $len + 2 - strlen($body));
    fclose($s);
    $out = [];
    foreach (explode("\r\n", $body) as $line) {
        if (str_contains($line, ':') && $line[0] !== '#') {
            [$k, $v] = explode(':', $line, 2);
            $out[$k] = $v;
        }
    }
    return $out;
}
function calls(array $info, string $cmd): int {
    return preg_match('/calls=(\d+)/', $info["cmdstat_$cmd"] ?? '', $m) ? (int)$m[1] : 0;
}
function cpu_us(): int {
    $r = getrusage();
    return $r['ru_utime.tv_sec'] * 1000000 + $r['ru_utime.tv_usec'] + $r['ru_stime.tv_sec'] * 1000000 + $r['ru_stime.tv_usec'];
}

// 1. 1000 leases under the watchdog, ttl 3 s (period 1 s); measured over whole periods while PHP sleeps.
$n = 1000;
$ttl = 3.0;
$periods = $quick ? 3 : 6;
$d = new DistLock($uri, ['prefix' => 'bench-wd:', 'watchdog' => true, 'max_hold' => 600]);
$held = [];
for ($i = 0; $i < $n; $i++) $held[] = $d->lock("l$i", $ttl);
sleep(2);                                   // past the first renewals: steady state
$s0 = $d->stats();
$i0 = info($host, (int)$port);
$c0 = cpu_us();
$t0 = hrtime(true);
sleep((int)($periods * $ttl / 3));
$wall = (hrtime(true) - $t0) / 1e9;
$cpu = cpu_us() - $c0;                      // PHP sleeps: this is the watchdog thread's
$s1 = $d->stats();
$i1 = info($host, (int)$port);
$periodsMeasured = $wall / ($ttl / 3);
$rt = ($s1['renewal_round_trips'] - $s0['renewal_round_trips']) / $periodsMeasured;
$ren = ($s1['renewals'] - $s0['renewals']) / $periodsMeasured;
$evalsha = (calls($i1, 'evalsha') - calls($i0, 'evalsha')) / $periodsMeasured;
$alive = 0;
foreach ($held as $l) $alive += (int)$l->isAcquired();
foreach ($held as $l) $l->release();
unset($held);

// 2. reentrant acquire: round trips per extra handle on a held lease
$r = new DistLock($uri, ['prefix' => 'bench-re:']);
$outer = $r->lock('x', 30);
$m = 1000;
$i0 = info($host, (int)$port);
$t0 = hrtime(true);
for ($i = 0; $i < $m; $i++) { $h = $r->lock('x', 30); unset($h); }
$reUs = (hrtime(true) - $t0) / 1e3 / $m;
$i1 = info($host, (int)$port);
$reRt = ((int)$i1['total_reads_processed'] - (int)$i0['total_reads_processed'] - 1) / $m;   // minus our INFO
$reCmd = (calls($i1, 'evalsha') + calls($i1, 'eval') - calls($i0, 'evalsha') - calls($i0, 'eval')) / $m;
$outer->release();

printf("\n## Lease lifecycle (issue 3)\n\n");
printf("%d leases (ttl %.0f s, renewal period ttl/3 = %.0f s) held by one process under the watchdog for %.1f periods while PHP sleeps; counters from `stats()` and `INFO commandstats`.\n\n", $n, $ttl, $ttl / 3, $periodsMeasured);
printf("| per renewal period | value |\n| --- | --- |\n");
printf("| round trips (pipelines) | %.1f |\n", $rt);
printf("| leases renewed | %.0f |\n", $ren);
printf("| commands (EVALSHA of the refresh script) | %.0f |\n", $evalsha);
printf("| watchdog CPU | %.2f ms (%.3f %% of one core) |\n", $cpu / 1000 / $periodsMeasured, $cpu / 1e4 / $wall);
printf("| leases still held at the end | %d of %d |\n\n", $alive, $n);
printf("Reentrant `lock()` of a name the instance holds (%d times): %.2f round trips and %.2f commands each (one compare-and-PEXPIRE), %.1f µs each.\n", $m, $reRt, $reCmd, $reUs);
