--TEST--
Sentinel: with the master stalled (SIGSTOP, shorter than the sentinels' down-after), every operation ends within its call's bound (`timeout`; a waiting acquire max(wait, timeout)), whatever undo or retry it still owes, and the next call reads its own replies
--SKIPIF--
<?php if (!getenv('SENTINEL_PORTS')) die('skip SENTINEL_PORTS not set'); ?>
--FILE--
<?php
require __DIR__ . '/sentinel.inc';
require __DIR__ . '/../phpt/inc/proc.inc';
require __DIR__ . '/../phpt/inc/stall.inc';
$timeout = 0.3;
$pid = getenv('SENTINEL_MASTER_PID');
stall_run(fn($i) => new DistLock(st_sentinels(), ['sentinel' => st_name(), 'prefix' => "st04:$i:", 'timeout' => $timeout]),
          fn() => st_signal('STOP', $pid), fn() => st_signal('CONT', $pid),
          stall_ops(2.0, true), $timeout, is_valgrind() ? 0.4 : 0.2);
?>
--EXPECT--
tryLock: ConnectionException, within its bound
lock(wait: 0): ConnectionException, within its bound
lock(wait: 1): ConnectionException, within its bound
tryLockShared: ConnectionException, within its bound
lockShared(wait: 0): ConnectionException, within its bound
tryLockExclusive: ConnectionException, within its bound
tryAcquirePermits: ConnectionException, within its bound
acquirePermits(wait: 1): ConnectionException, within its bound
tryLockAll: ConnectionException, within its bound
lockAll(wait: 1): ConnectionException, within its bound
synchronized: ConnectionException, within its bound
Lock::release: ConnectionException, within its bound
Lock::refresh: ConnectionException, within its bound
release(name, token): ConnectionException, within its bound
refresh(name, token): ConnectionException, within its bound
releaseAll: ConnectionException, within its bound
restore: ConnectionException, within its bound
status: ConnectionException, within its bound
isLocked: ConnectionException, within its bound
owner: ConnectionException, within its bound
forceRelease: ConnectionException, within its bound
