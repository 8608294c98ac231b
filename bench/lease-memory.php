<?php
/*
 * Redis memory per held lease, for each primitive, against a bare
 * `SET key token NX PX ttl` (issue 30, "Every companion key goes away").
 *
 *   php -n -d extension=/abs/modules/distlock.so bench/lease-memory.php --redis=127.0.0.1:PORT [--leases=10000]
 *
 * For each row it FLUSHALLs the server (never point it at a server that holds
 * anything), takes --leases leases (each on its own name, or all on one name
 * where the row says so), reads used_memory and DBSIZE while they are held,
 * releases them, and reads DBSIZE again. Prints a Markdown table: bytes per
 * lease, its ratio to the bare key, keys per lease while held, keys left
 * after the releases (the slots' fencing counters are the only keys meant to
 * stay). Tokens are distlock's own (22 characters); the bare row uses a
 * token of the same length, so the difference is distlock's encoding.
 */
declare(strict_types=1);

require __DIR__ . '/lib/resp.php';

$opt = getopt('', ['redis:', 'leases:']);
if (!isset($opt['redis'])) {
    fwrite(STDERR, "usage: php bench/lease-memory.php --redis=HOST:PORT [--leases=N]\n");
    exit(2);
}
[$host, $port] = explode(':', $opt['redis']);
$n = (int) ($opt['leases'] ?? 10000);
$raw = stream_socket_client("tcp://$host:$port", $errno, $errstr, 5) or die("connect: $errstr\n");


$uri = "redis://$host:$port";
$plain = new DistLock($uri, ['prefix' => 'lock:']);
$fenced = new DistLock($uri, ['prefix' => 'lock:', 'fencing' => true]);
$fair = new DistLock($uri, ['prefix' => 'lock:', 'fair' => true]);
$token = str_repeat('t', strlen($plain->tryLock('probe', 5)->token()));

// name => [what it takes, how a lease is taken ($i: its number) and kept]
$rows = [
    'bare SET NX PX (same token length)' => fn(int $i) => resp_cmd($raw, 'SET', "lock:account:$i", $token . $i % 10, 'NX', 'PX', '60000'),
    'mutex' => fn(int $i) => $plain->tryLock("account:$i", 60)->detach(),
    'mutex, fencing' => fn(int $i) => $fenced->tryLock("account:$i", 60)->detach(),
    'fair mutex' => fn(int $i) => $fair->tryLock("account:$i", 60)->detach(),
    'shared (one holder per name)' => fn(int $i) => $plain->tryLockShared("account:$i", 60)->detach(),
    'shared (all holders on one name)' => fn(int $i) => $plain->tryLockShared('report', 60)->detach(),
    'exclusive' => fn(int $i) => $plain->tryLockExclusive("account:$i", 60)->detach(),
    'exclusive, fencing' => fn(int $i) => $fenced->tryLockExclusive("account:$i", 60)->detach(),
    'permits (1 of 10 per name)' => fn(int $i) => $plain->tryAcquirePermits("account:$i", 10, 1, 60)->detach(),
    'permits (all holders on one name)' => fn(int $i) => $plain->tryAcquirePermits('pool', 1000000, 1, 60)->detach(),
    'permits (3 of 10 per name)' => fn(int $i) => $plain->tryAcquirePermits("account:$i", 10, 3, 60)->detach(),
    'multi-lock member (4 names per lockAll)' => null,
];

echo "Machine: ", php_uname('m'), ", ", trim((string) shell_exec('nproc')), " cores; Redis ",
    preg_match('/redis_version:(\S+)/', resp_cmd($raw, 'INFO', 'server'), $m) ? $m[1] : '?', "; $n leases per row.\n\n";
echo "| lease | bytes per lease | × bare key | keys per lease while held | keys left after release |\n|---|---:|---:|---:|---:|\n";
$bare = null;
foreach ($rows as $label => $take) {
    resp_cmd($raw, 'FLUSHALL');
    $base = resp_used_memory($raw);
    $held = [];   // [name, token, kind]
    if ($take === null) {          // multi-lock: $n names in groups of 4
        for ($i = 0; $i < $n; $i += 4) {
            foreach ($plain->tryLockAll(["account:$i", 'account:' . ($i + 1), 'account:' . ($i + 2), 'account:' . ($i + 3)], 60) as $l) {
                $held[] = [$l->name(), $l->detach(), 'mutex'];
            }
        }
    } else {
        for ($i = 0; $i < $n; $i++) {
            $t = $take($i);
            $held[] = [str_contains($label, 'one name') ? (str_starts_with($label, 'shared') ? 'report' : 'pool') : "account:$i", $t, $label];
        }
    }
    $bytes = (resp_used_memory($raw) - $base) / $n;
    $keys = (int) resp_cmd($raw, 'DBSIZE') / $n;
    foreach ($held as [$name, $tok, $kind]) {
        if ($kind === 'bare SET NX PX (same token length)') { resp_cmd($raw, 'DEL', "lock:$name"); continue; }
        if (str_starts_with($kind, 'shared')) $plain->restoreShared($name, $tok)->release();
        elseif (str_starts_with($kind, 'exclusive')) ($kind === 'exclusive' ? $plain : $fenced)->restoreExclusive($name, $tok)->release();
        elseif (str_starts_with($kind, 'permits')) $plain->restorePermits($name, $tok)->release();
        else ($kind === 'mutex, fencing' ? $fenced : ($kind === 'fair mutex' ? $fair : $plain))->release($name, $tok);
    }
    $left = (int) resp_cmd($raw, 'DBSIZE');
    $bare ??= $bytes;
    printf("| %s | %.0f | %.2f | %.2f | %d |\n", $label, $bytes, $bytes / $bare, $keys, $left);
}
