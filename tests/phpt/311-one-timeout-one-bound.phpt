--TEST--
One call, one bound (issue 37.2), one server stalled (SIGSTOP): each call ends within the bound its message names, and that is the bound that applied (`timeout`, or max(wait, timeout)); endRequest() and the request-end sweep take one `timeout` in all for 1 or 5 leases, and every release still runs when the server resumes
--EXTENSIONS--
distlock
posix
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
require __DIR__ . '/inc/proc.inc';
if (redis_server_bin() === null) die('skip redis-server not found');
?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
require __DIR__ . '/inc/onebound.inc';
// a private server: SIGSTOP must not pause the tests running in parallel
$port = start_test_redis('311');
$pid = (int)trim((string)file_get_contents(test_redis_dir('311') . "/$port.pid"));
$uri = "redis://127.0.0.1:$port";
// Before issue 37.2, with timeout 0.5: lock(wait: 2) ~1.0 s naming "the 0.500 s timeout" (its undo
// waited a timeout of its own), lockAll(wait: 2) ~1.5 s, endRequest() ~1.0 s (the release, then
// the settle of its second attempt, each a timeout).
$timeout = 0.5;
$make = fn($tag) => new DistLock($uri, ['prefix' => "phpt_311:$tag:", 'timeout' => $timeout, 'watchdog' => false]);
$stop = fn() => posix_kill($pid, SIGSTOP);
$cont = fn() => posix_kill($pid, SIGCONT);
$checker = new DistLock($uri, ['timeout' => 5]);
$held = fn($tag, $name) => $checker->isLocked("phpt_311:$tag:$name");
try {
    ob_run($make, $stop, $cont, ob_ops(10.0, true), $timeout);
    ob_end_request($make, $stop, $cont, $held, [1, 5], $timeout);
    ob_sweep("\$d = new DistLock('$uri', ['prefix' => 'phpt_311:sweep:', 'timeout' => $timeout, 'watchdog' => false]);",
             $stop, $cont, $held, 5, $timeout);
} finally {
    $cont();
}
stop_test_redis_all('311');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('311');
?>
--EXPECT--
tryLock: within the bound it names (timeout)
lock(wait: 2): within the bound it names (timeout)
lock(wait: 0.2): within the bound it names (timeout)
tryLockAll: within the bound it names (timeout)
lockAll(wait: 2): within the bound it names (timeout)
Lock::release: within the bound it names (timeout)
release(name, token): within the bound it names (timeout)
releaseAll: within the bound it names (timeout)
Lock::refresh: within the bound it names (timeout)
refresh(name, token): within the bound it names (timeout)
endRequest, 1 lease: within one timeout, every release ran
endRequest, 5 leases: within one timeout, every release ran
request-end sweep, 5 leases: within one timeout, every release ran
