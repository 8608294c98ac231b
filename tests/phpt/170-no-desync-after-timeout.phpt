--TEST--
After a read timeout the connection is dropped: later commands never get a stale reply (200 alternations, 0 mismatches)
--EXTENSIONS--
distlock
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
// a private server: its DEBUG SLEEP pauses must not slow down tests running in parallel
$port = start_test_redis('170', ['--enable-debug-command', 'local']);
$uri = "redis://127.0.0.1:$port";
$raw = RawConn::tcp('127.0.0.1', $port);
$prefix = 'phpt_170:';
$raw->cmd('SET', $prefix . 'present', 'x', 'PX', 60000);
// `timeout` bounds a whole call, client time included (issue 27.3): under valgrind
// a call's own CPU time can approach 0.1 s; 0.3 s still ends well inside each 0.5 s pause
$dl = new DistLock($uri, ['prefix' => $prefix, 'timeout' => is_valgrind() ? 0.3 : 0.1]);
var_dump($dl->isLocked("absent"));
$holder = $dl->lock('held', 60, 1);

$timeouts = 0; $mismatches = 0; $errors = 0; $checks = 0;
for ($round = 0; $round < 5; $round++) {
    $pauser = RawConn::tcp('127.0.0.1', $port);
    $pauser->send('DEBUG', 'SLEEP', '0.5');
    usleep(30000);
    try {
        // the reply (1) arrives late; it must never be read as the answer to a later command
        $dl->isLocked('present');
    } catch (DistLock\ConnectionException $e) {
        $timeouts++;
    }
    $pauser->read();
    // first the command whose true answer differs from the stale one
    for ($i = 0; $i < 40; $i++) {
        try {
            $checks++;
            if ($i % 2 === 0) {
                $mismatches += (int)($dl->isLocked('absent') !== false);
            } else {
                $mismatches += (int)($dl->isLocked('present') !== true);
            }
        } catch (Throwable $e) {
            $errors++;
        }
    }
    // ownership checks see the right replies too
    $mismatches += (int)($holder->isAcquired() !== true);
    $l = $dl->tryLock('held-by-other-' . $round, 10);
    $mismatches += (int)($l === null || !$l->release());
}
echo "timeouts injected: ", $timeouts >= 4 ? 'yes' : "only $timeouts", "\n";
echo "checks: $checks, mismatches: $mismatches, errors: $errors\n";

// the same after a timed-out acquire and a timed-out release
$pauser = RawConn::tcp('127.0.0.1', $port);
$pauser->send('DEBUG', 'SLEEP', '0.5');
usleep(30000);
try { $dl->tryLock('absent', 10); echo "tryLock: no exception\n"; } catch (DistLock\ConnectionException $e) { echo "tryLock: ConnectionException\n"; }
$pauser->read();
var_dump($dl->isLocked('absent'), $dl->isLocked('present'), $raw->cmd('EXISTS', $prefix . 'absent'));

$l = $dl->lock('rel', 30, 1);
$pauser = RawConn::tcp('127.0.0.1', $port);
$pauser->send('DEBUG', 'SLEEP', '0.5');
usleep(30000);
try { $r = $l->release(); echo "release: no exception\n"; } catch (DistLock\ConnectionException $e) { echo "release: ConnectionException\n"; }
$pauser->read();
var_dump($dl->isLocked('absent'), $dl->isLocked('present'), $holder->isAcquired());
var_dump($holder->release(), $raw->cmd('EXISTS', $prefix . 'held'));
stop_test_redis_all('170');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('170');
?>
--EXPECT--
bool(false)
timeouts injected: yes
checks: 200, mismatches: 0, errors: 0
tryLock: ConnectionException
bool(false)
bool(true)
int(0)
release: ConnectionException
bool(false)
bool(true)
bool(true)
bool(true)
int(0)
