--TEST--
Deadlock detection (issue 47) in fair mode and with fencing: whose first attempt is the registration script itself (an uncontended lock() sends it, so it carries no check); the cycle is found at the first re-registration (after a block of at most 2 s): exactly one of the two transfers fails with DeadlockException, the other is granted once it lets go
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; if (!function_exists('pcntl_fork')) die('skip pcntl'); ?>
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$p = 'phpt_424:';
$port = start_test_redis('424');
$uri = "redis://127.0.0.1:$port";
$raw = RawConn::tcp('127.0.0.1', $port);
$slow = (is_valgrind() ? 20 : 1) * lc_load();
$dir = sys_get_temp_dir() . '/phpt_424_' . getmypid();
@mkdir($dir);

function blocked_clients(RawConn $raw): int
{
    preg_match('/blocked_clients:(\d+)/', $raw->cmd('INFO', 'clients'), $m);
    return (int)$m[1];
}

// The three cases side by side, each under a prefix of its own (each takes up to a block, 2 s).
$cases = ['fair' => ['fair' => true], 'fenced' => ['fencing' => true], 'fair and fenced' => ['fair' => true, 'fencing' => true]];
$kids = [];
$c = 0;
foreach ($cases as $case => $opts) {
    $c++;
    foreach ([['7', '9'], ['9', '7']] as $i => [$from, $to]) {
        $kids[$case][$i] = fork_child(function () use ($uri, $p, $c, $opts, $dir, $i, $from, $to) {
            $d = new DistLock($uri, ['prefix' => "$p$c:"] + $opts);
            $mine = $d->lock("account:$from", 60, 10);
            touch("$dir/$c.$i.held");
            while (!file_exists("$dir/$c.go")) usleep(2000);
            try {
                $d->lock("account:$to", 60, 60)->release();
                $r = 'granted';
            } catch (DistLock\LockTimeoutException $e) {
                $r = get_class($e) . (str_contains($e->getMessage(), "waits for \"account:$to\"") &&
                    str_contains($e->getMessage(), "which waits for \"account:$from\"") ? ' naming the cycle' : ': ' . $e->getMessage());
            }
            $mine->release();
            file_put_contents("$dir/$c.$i.out", $r);
            return 0;
        });
    }
    lc_wait_until(fn() => file_exists("$dir/$c.0.held") && file_exists("$dir/$c.1.held"), 10 * $slow);
    touch("$dir/$c.go");
}
$c = 0;
foreach ($cases as $case => $opts) {
    $c++;
    $outs = [];
    foreach ($kids[$case] as $i => $pid) {
        wait_child($pid);
        $outs[] = @file_get_contents("$dir/$c.$i.out");
    }
    sort($outs);
    echo "$case: ", implode('; ', $outs), "\n";
}
array_map('unlink', glob("$dir/*"));
rmdir($dir);
stop_test_redis_all('424');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('424');
?>
--EXPECT--
fair: DistLock\DeadlockException naming the cycle; granted
fenced: DistLock\DeadlockException naming the cycle; granted
fair and fenced: DistLock\DeadlockException naming the cycle; granted
