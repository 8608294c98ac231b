<?php
declare(strict_types=1);

/**
 * The "red packet" demo: one user may grab at most one share of a red packet.
 *
 * A packet holds --shares shares (a Redis list of random cent amounts that sum
 * to the packet total). --workers processes (pcntl_fork) each send --requests
 * "grab" requests, each on behalf of one of --users random users. A grab is a
 * check-then-pop:
 *
 *     HGET packet:P:grabbed <user>      already got one? -> "already grabbed"
 *     (a short pause: the race window)
 *     LPOP packet:P:shares              nothing left?    -> "packet empty"
 *     HSET packet:P:grabbed <user> <amount>
 *     RPUSH packet:P:log "<user>:<amount>:<share index>"
 *
 * Without a lock two requests of the same user in flight at once both pass the
 * check and both pop a share. With --mode=locked (default) each grab runs under
 *
 *     $lock = $dl->lock("red_packet:$packetId:user:$userId", $ttl, $wait);
 *     try { grab } finally { $lock->release(); }
 *
 * a DistLock lease with a random owner token, released by the extension's
 * owner-checked compare-and-delete. --mode=unlocked runs the same code without
 * the lock, to show what the lock prevents.
 *
 * The verifier reads the grant log (the grabbed hash alone cannot show a user
 * granted twice: the second HSET overwrites the first) and checks: no user
 * granted more than once, no share handed out more than once, and the money
 * adds up (granted + left in the packet = total; ledger + left = total).
 *
 * Usage: php -d extension=distlock.so examples/red_packet.php [--mode=locked|unlocked]
 *          [--redis=URI] [--workers=8] [--requests=200] [--users=50] [--shares=100]
 *          [--total=100.00] [--window=400] [--keep] [--quiet]
 * --redis defaults to $DISTLOCK_DEMO_REDIS, else redis://127.0.0.1:6379.
 * --window is the pause between check and pop, in microseconds.
 *
 * Exit status: 0 no violation (or --mode=unlocked: violations are printed but
 * expected), 1 a violation in locked mode, 2 a setup or worker error.
 */

require_once __DIR__ . '/lib/resp.php';

const LOCK_TTL = 5.0;    // seconds; a grab takes well under a millisecond
const LOCK_WAIT = 5.0;   // seconds; the same user is rarely in flight more than twice

function usage(string $msg = ''): never
{
    $me = basename(__FILE__);
    if ($msg !== '') {
        fwrite(STDERR, "$me: $msg\n");
    }
    fwrite(STDERR, "usage: php -d extension=distlock.so $me [--mode=locked|unlocked] [--redis=URI]\n"
        . "         [--workers=8] [--requests=200] [--users=50] [--shares=100] [--total=100.00]\n"
        . "         [--window=MICROSECONDS] [--keep] [--quiet]\n");
    exit(2);
}

function fail(string $msg): never
{
    fwrite(STDERR, basename(__FILE__) . ": $msg\n");
    exit(2);
}

function intOpt(array $o, string $k, int $def, int $min, int $max): int
{
    if (!isset($o[$k])) {
        return $def;
    }
    $v = filter_var($o[$k], FILTER_VALIDATE_INT);
    if ($v === false || $v < $min || $v > $max) {
        usage("--$k must be an integer in $min..$max");
    }
    return $v;
}

function money(int $cents): string
{
    return sprintf('%s%d.%02d', $cents < 0 ? '-' : '', intdiv(abs($cents), 100), abs($cents) % 100);
}

/** Random amounts in cents, each >= 1, summing to $total ("double mean" split, as red packets do). */
function splitPacket(int $total, int $n): array
{
    $out = [];
    $left = $total;
    for ($i = $n; $i > 1; $i--) {
        $max = max(1, intdiv(2 * $left, $i) - 1);   // keep >= 1 cent for each later share
        $max = min($max, $left - ($i - 1));
        $a = random_int(1, $max);
        $out[] = $a;
        $left -= $a;
    }
    $out[] = $left;
    shuffle($out);
    return $out;
}

/** One grab; returns ['granted', amount, index] | ['already'] | ['empty']. */
function grab(Resp $r, string $pk, string $user, int $windowUs): array
{
    if ($r->cmd('HGET', "$pk:grabbed", $user) !== null) {
        return ['already'];
    }
    if ($windowUs > 0) {
        usleep($windowUs);   // the race window: real code does I/O here (a DB read, an RPC)
    }
    $share = $r->cmd('LPOP', "$pk:shares");
    if ($share === null) {
        return ['empty'];
    }
    [$idx, $amount] = explode(':', $share);
    $r->cmd('HSET', "$pk:grabbed", $user, $amount);
    $r->cmd('RPUSH', "$pk:log", "$user:$amount:$idx");
    return ['granted', (int)$amount, (int)$idx];
}

// ---------------------------------------------------------------- options
$o = getopt('h', ['mode:', 'redis:', 'workers:', 'requests:', 'users:', 'shares:', 'total:', 'window:',
    'keep', 'quiet', 'help'], $rest);
if ($o === false || isset($o['h']) || isset($o['help'])) {
    usage();
}
if ($rest < $argc) {
    usage('unexpected argument ' . $argv[$rest]);
}
foreach ($o as $k => $v) {
    if (is_array($v)) {
        usage("--$k given more than once");
    }
}
$mode = $o['mode'] ?? 'locked';
if ($mode !== 'locked' && $mode !== 'unlocked') {
    usage('--mode must be locked or unlocked');
}
$uri = $o['redis'] ?? (getenv('DISTLOCK_DEMO_REDIS') ?: 'redis://127.0.0.1:6379');
$workers = intOpt($o, 'workers', 8, 1, 256);
$requests = intOpt($o, 'requests', 200, 1, 1000000);
$users = intOpt($o, 'users', 50, 1, 1000000);
$shares = intOpt($o, 'shares', 100, 1, 1000000);
$windowUs = intOpt($o, 'window', 400, 0, 1000000);
$totalStr = $o['total'] ?? '100.00';
if (!preg_match('/^\d{1,9}(\.\d{1,2})?$/', $totalStr)) {
    usage('--total must be an amount like 100 or 100.00');
}
$total = (int)round((float)$totalStr * 100);
if ($total < $shares) {
    usage('--total must give every share at least 0.01');
}
$keep = isset($o['keep']);
$quiet = isset($o['quiet']);

if (!function_exists('pcntl_fork')) {
    fail('needs the pcntl extension (pcntl_fork)');
}
if ($mode === 'locked') {
    if (!class_exists('DistLock', false)) {
        fail('the distlock extension is not loaded: run with  php -d extension=/path/to/distlock.so');
    }
    try {
        new DistLock($uri);   // validates the URI here, once (it connects lazily)
    } catch (ValueError | RuntimeException $e) {
        fail(get_class($e) . ': ' . $e->getMessage());
    }
}

// ---------------------------------------------------------------- set up the packet
try {
    $redis = new Resp($uri);
    $redis->cmd('PING');
} catch (RespError $e) {
    fail("Redis at $uri: " . $e->getMessage());
}
$packetId = bin2hex(random_bytes(4));
$pk = "packet:$packetId";
$amounts = splitPacket($total, $shares);
$push = ['RPUSH', "$pk:shares"];
foreach ($amounts as $i => $a) {
    $push[] = "$i:$a";     // "<share index>:<cents>": the index makes every share identifiable
}
$redis->cmd('DEL', "$pk:shares", "$pk:grabbed", "$pk:log", "$pk:ready", "$pk:go");
$redis->cmd(...$push);

printf("red packet %s: %d shares, total %s; %d workers x %d requests from %d users; mode %s (race window %d us)\n",
    $packetId, $shares, money($total), $workers, $requests, $users, $mode, $windowUs);

// ---------------------------------------------------------------- workers
$pids = [];
for ($w = 0; $w < $workers; $w++) {
    $pid = pcntl_fork();
    if ($pid < 0) {
        fail('fork failed');
    }
    if ($pid === 0) {
        // Child. Everything Redis-related is made here, after fork: its own
        // RESP connection and its own DistLock (its own connection and owner).
        $code = 0;
        try {
            mt_srand(random_int(0, PHP_INT_MAX));   // the parent's mt state was copied: reseed
            $r = new Resp($uri);
            $dl = $mode === 'locked' ? new DistLock($uri) : null;
            $st = ['worker' => $w, 'granted' => 0, 'already' => 0, 'empty' => 0, 'lock_timeouts' => 0,
                'lost_leases' => 0, 'lock_wait_us' => 0, 'contended' => 0];
            $r->cmd('RPUSH', "$pk:ready", (string)$w);
            // Start together: wait (in 1 s steps, below the read timeout) for the parent's go.
            for ($t = 0, $go = null; $t < 30 && $go === null; $t++) {
                $go = $r->cmd('BLPOP', "$pk:go", '1');
            }
            if ($go === null || $go[1] !== 'go') {
                exit(0);     // the parent gave up (another worker failed to start)
            }
            for ($i = 0; $i < $requests; $i++) {
                $user = sprintf('u%03d', mt_rand(1, $users));
                if ($dl !== null) {
                    $t0 = hrtime(true);
                    try {
                        $lock = $dl->lock("red_packet:$packetId:user:$user", LOCK_TTL, LOCK_WAIT);
                    } catch (DistLock\LockTimeoutException) {
                        $st['lock_timeouts']++;      // answered "busy, try again"
                        continue;
                    } finally {
                        $st['lock_wait_us'] += intdiv(hrtime(true) - $t0, 1000);
                    }
                    try {
                        $res = grab($r, $pk, $user, $windowUs);
                    } finally {
                        if (!$lock->release()) {
                            $st['lost_leases']++;    // the lease expired while we held it
                        }
                        unset($lock);
                    }
                } else {
                    $res = grab($r, $pk, $user, $windowUs);
                }
                $st[$res[0]]++;
            }
            if ($dl !== null) {
                $st['contended'] = $dl->stats()['contended'];   // attempts that found the user locked
            }
            $r->cmd('RPUSH', "$pk:results", json_encode($st));
        } catch (Throwable $e) {
            fwrite(STDERR, sprintf("worker %d: %s: %s\n", $w, get_class($e), $e->getMessage()));
            $code = 3;
        }
        exit($code);
    }
    $pids[$pid] = $w;
}

// Parent: wait until every worker is connected, then start them at once.
$abort = function (string $msg) use ($redis, $pk, $workers): never {
    $redis->cmd('RPUSH', "$pk:go", ...array_fill(0, $workers, 'stop'));   // workers waiting for go exit
    while (pcntl_wait($status) > 0) {
    }
    $redis->cmd('DEL', "$pk:shares", "$pk:grabbed", "$pk:log", "$pk:results", "$pk:ready", "$pk:go");
    fail($msg);
};
$ready = 0;
$deadline = microtime(true) + 30;
while ($ready < $workers && microtime(true) < $deadline) {
    if ($redis->cmd('BLPOP', "$pk:ready", '1') !== null) {
        $ready++;
    }
    if (($pid = pcntl_waitpid(-1, $status, WNOHANG)) > 0) {   // a worker died before it was ready
        $abort("worker {$pids[$pid]} exited during setup");
    }
}
if ($ready < $workers) {
    $abort("only $ready of $workers workers came up");
}
$t0 = hrtime(true);
$redis->cmd('RPUSH', "$pk:go", ...array_fill(0, $workers, 'go'));
$workerErrors = 0;
foreach ($pids as $pid => $w) {
    pcntl_waitpid($pid, $status);
    if (pcntl_wifsignaled($status)) {
        $workerErrors++;
        fwrite(STDERR, sprintf("worker %d (pid %d) killed by signal %d%s\n", $w, $pid, pcntl_wtermsig($status),
            pcntl_wtermsig($status) === 11 ? ' (SIGSEGV: a crash)' : ''));
    } elseif (pcntl_wexitstatus($status) !== 0) {
        $workerErrors++;
        fwrite(STDERR, sprintf("worker %d (pid %d) exited with status %d\n", $w, $pid, pcntl_wexitstatus($status)));
    }
}
$elapsed = (hrtime(true) - $t0) / 1e9;

// ---------------------------------------------------------------- outcome
$st = ['granted' => 0, 'already' => 0, 'empty' => 0, 'lock_timeouts' => 0, 'lost_leases' => 0, 'lock_wait_us' => 0,
    'contended' => 0];
foreach ($redis->cmd('LRANGE', "$pk:results", '0', '-1') as $json) {
    foreach (json_decode($json, true) as $k => $v) {
        if ($k !== 'worker') {
            $st[$k] += $v;
        }
    }
}
$log = $redis->cmd('LRANGE', "$pk:log", '0', '-1');
$left = $redis->cmd('LRANGE', "$pk:shares", '0', '-1');
$ledger = $redis->cmd('HGETALL', "$pk:grabbed");
$redis->cmd('DEL', "$pk:results", "$pk:ready", "$pk:go");
foreach (['shares', 'grabbed', 'log'] as $k) {
    $keep ? $redis->cmd('EXPIRE', "$pk:$k", '3600') : $redis->cmd('DEL', "$pk:$k");
}
if ($keep) {
    echo "kept for an hour: $pk:shares (left), $pk:grabbed (ledger), $pk:log (grants)\n";
}

$answered = $st['granted'] + $st['already'] + $st['empty'] + $st['lock_timeouts'];
$byUser = [];    // user => list of [index, amount]
$byShare = [];   // index => list of users
$grantedCents = 0;
foreach ($log as $entry) {
    [$user, $amount, $idx] = explode(':', $entry);
    $byUser[$user][] = [(int)$idx, (int)$amount];
    $byShare[(int)$idx][] = $user;
    $grantedCents += (int)$amount;
}
$leftCents = 0;
foreach ($left as $s) {
    $leftCents += (int)explode(':', $s)[1];
}
$ledgerCents = 0;
for ($i = 1; $i < count($ledger); $i += 2) {
    $ledgerCents += (int)$ledger[$i];
}

echo "outcome:\n";
printf("  requests answered      %6d of %d\n", $answered, $workers * $requests);
printf("  shares granted         %6d  (%s)\n", count($log), money($grantedCents));
printf("  users served           %6d of %d\n", count($byUser), $users);
printf("  \"already grabbed\"      %6d\n", $st['already']);
printf("  \"packet empty\"         %6d\n", $st['empty']);
if ($mode === 'locked') {
    printf("  contended attempts     %6d  (the same user already in flight in another worker)\n", $st['contended']);
    printf("  lock wait timeouts     %6d\n", $st['lock_timeouts']);
    printf("  time in lock()         %8.3f s  (all workers together)\n", $st['lock_wait_us'] / 1e6);
}
printf("  shares left            %6d  (%s)\n", count($left), money($leftCents));
printf("  time                   %8.3f s  (%.0f requests/s)\n", $elapsed, $answered / max($elapsed, 1e-9));

// ---------------------------------------------------------------- verification
$violations = [];
$dupUsers = array_filter($byUser, fn($g) => count($g) > 1);
ksort($dupUsers);
$dupShares = array_filter($byShare, fn($u) => count($u) > 1);
ksort($dupShares);
$extra = array_sum(array_map(fn($g) => count($g) - 1, $dupUsers));

echo "verification:\n";
printf("  users granted more than once       %4d%s\n", count($dupUsers),
    $dupUsers ? "  ($extra extra shares)" : '');
$shown = 0;
foreach ($dupUsers as $user => $grants) {
    if (!$quiet && $shown++ < 5) {
        printf("      %s got %d shares: %s\n", $user, count($grants),
            implode(', ', array_map(fn($g) => "#$g[0] (" . money($g[1]) . ')', $grants)));
    }
}
if (!$quiet && count($dupUsers) > 5) {
    printf("      ... and %d more\n", count($dupUsers) - 5);
}
if ($dupUsers) {
    $violations[] = count($dupUsers) . " user(s) granted more than once";
}
printf("  shares handed out more than once   %4d\n", count($dupShares));
foreach (array_slice($dupShares, 0, 5, true) as $idx => $us) {
    printf("      share #%d went to %s\n", $idx, implode(', ', $us));
}
if ($dupShares) {
    $violations[] = count($dupShares) . " share(s) handed out more than once";
}

// Every share is either left in the packet or in the log, exactly once.
$seen = array_fill(0, $shares, 0);
foreach ($left as $s) {
    $seen[(int)explode(':', $s)[0]]++;
}
foreach ($byShare as $idx => $us) {
    $seen[$idx] += count($us);
}
$missing = count(array_filter($seen, fn($n) => $n === 0));
if ($missing) {
    $violations[] = "$missing share(s) neither left in the packet nor in the log";
}
$sum = $grantedCents + $leftCents;
printf("  granted + left = total             %s + %s = %s  %s\n", money($grantedCents), money($leftCents),
    money($sum), $sum === $total && !$missing ? 'ok' : 'MISMATCH (total ' . money($total) . ')');
if ($sum !== $total) {
    $violations[] = 'granted + left = ' . money($sum) . ', not the total ' . money($total);
}
$lsum = $ledgerCents + $leftCents;
printf("  ledger + left = total              %s + %s = %s  %s\n", money($ledgerCents), money($leftCents),
    money($lsum), $lsum === $total ? 'ok' : 'MISMATCH: ' . money($total - $lsum) . ' paid out but not in the ledger');
if ($lsum !== $total) {
    $violations[] = money($total - $lsum) . ' paid out but missing from the ledger (overwritten HSET)';
}
if (count($log) !== $st['granted']) {
    $violations[] = sprintf('workers report %d grants, the log holds %d', $st['granted'], count($log));
}
if ($st['lost_leases'] > 0) {
    $violations[] = "{$st['lost_leases']} lease(s) expired while held (release() returned false)";
}

if ($workerErrors > 0) {
    echo "RESULT: ERROR: $workerErrors worker(s) failed (see stderr)\n";
    exit(2);
}
if (!$violations) {
    echo "RESULT: ok, no violation\n";
    exit(0);
}
if ($mode === 'unlocked') {
    echo "RESULT: without the lock: " . implode('; ', $violations) . "\n";
    exit(0);
}
echo "RESULT: VIOLATION: " . implode('; ', $violations) . "\n";
exit(1);
