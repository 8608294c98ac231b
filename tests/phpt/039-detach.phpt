--TEST--
Lock::detach(): the lease outlives its handles and the request, is not renewed, is forgotten by the instance, and is still released by token
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
?>
--INI--
; These checks look from another connection right after an implicit release:
; confirmed releases (the deferred ones are tested, deterministically, by 041-043).
distlock.defer_release=0
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$p = 'phpt_039:';
$a = new DistLock(test_uri(), ['prefix' => $p]);

// destruction: a detached lease stays, a scoped one goes (control)
$l = $a->lock('d', 5);
$tok = $l->detach();
var_dump($tok === $l->token(), strlen($tok));
unset($l);
var_dump(raw_redis('GET', "{$p}d") === $tok);
$l = $a->lock('s', 5);
unset($l);
var_dump(raw_redis('EXISTS', "{$p}s"));

// the instance forgot it: its next lock() of the name is another owner
var_dump($a->tryLock('d', 5), $a->tryLock('d', 5, $tok));
var_dump($a->release('d', $tok), raw_redis('EXISTS', "{$p}d"));

// request end: a child script detaches one lease and keeps another scoped
$uri = var_export(test_uri(), true);
[$rc, $out] = run_php_child(<<<PHP
<?php
\$a = new DistLock($uri, ['prefix' => '$p']);
\$keep = \$a->lock('req-detached', 5);
echo \$keep->detach();
\$scoped = \$a->lock('req-scoped', 5);
exit(0);
PHP);
var_dump($rc, raw_redis('GET', "{$p}req-detached") === $out, raw_redis('EXISTS', "{$p}req-scoped"));
var_dump($a->release('req-detached', $out));

// the handle keeps working by token after detach
$l = $a->lock('h', 2);
$l->detach();
var_dump($l->isAcquired(), $l->refresh(7));
$pt = raw_redis('PTTL', "{$p}h");
echo "refreshed to 7 s: ", var_export($pt > 6500 && $pt <= 7000, true), "\n";
var_dump($l->remainingLifetime() > 6.5, $l->release(), raw_redis('EXISTS', "{$p}h"), $l->release());

// reentrant handles: detaching one detaches the lease; any handle's release() releases it
$h1 = $a->lock('r', 5);
$h2 = $a->lock('r', 5);
$t = $h1->detach();
unset($h1);
var_dump(raw_redis('GET', "{$p}r") === $t);
var_dump($h2->release(), raw_redis('EXISTS', "{$p}r"));

// the watchdog stops renewing a detached lease (control: the other one is renewed)
$w = new DistLock(test_uri(), ['prefix' => $p, 'watchdog' => true]);
$renewed = $w->lock('wd-kept', 0.5);
$dropped = $w->lock('wd-detached', 0.5);
$dropped->detach();
usleep(1200000);
var_dump(raw_redis('EXISTS', "{$p}wd-kept"), raw_redis('EXISTS', "{$p}wd-detached"));
var_dump($renewed->release());

// after fork() the child's copy of a detached handle is inert like any other
$l = $a->lock('f', 5);
$t = $l->detach();
$pid = fork_child(function () use ($l) { return $l->release() ? 1 : 0; });
var_dump(wait_child($pid), raw_redis('GET', "{$p}f") === $t);
var_dump($l->release());

// synchronized() does not release a lease its callback detached (neither deferred nor confirmed)
foreach ([true, false] as $defer) {
    $s = new DistLock(test_uri(), ['prefix' => $p, 'defer_release' => $defer]);
    $t = $s->synchronized('sd', fn (DistLock\Lock $l) => $l->detach());
    $s->isLocked('sd');
    var_dump(raw_redis('GET', "{$p}sd") === $t, $s->release('sd', $t));
}

// detaching a released handle changes nothing
$l = $a->lock('x', 5);
$l->release();
var_dump($l->detach() === $l->token(), raw_redis('EXISTS', "{$p}x"), $l->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_039:');
?>
--EXPECT--
bool(true)
int(32)
bool(true)
int(0)
NULL
NULL
bool(true)
int(0)
int(0)
bool(true)
int(0)
bool(true)
bool(true)
bool(true)
refreshed to 7 s: true
bool(true)
bool(true)
int(0)
bool(false)
bool(true)
bool(true)
int(0)
int(1)
int(0)
bool(true)
string(6) "exit=0"
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
bool(false)
