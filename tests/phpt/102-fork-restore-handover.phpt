--TEST--
fork(): a child adopts the parent's lease with restore(); it, not the parent, then releases it
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
$prefix = 'phpt_102:';
raw_redis_del_prefix($prefix);
$dl = new DistLock(test_uri(), ['prefix' => $prefix]);

foreach (['release', 'unset', 'request-end', 'fatal'] as $how) {
    $lock = $dl->lock("job:$how", 60, 1);
    $token = $lock->token();
    $pid = fork_child(function () use ($dl, $how, $token, $prefix, $lock) {
        ini_set('display_errors', '0');
        // the inherited handle is inert here; the adopted one is the child's
        $adopted = $dl->restore("job:$how", $token);
        $r = 'same_token=' . (int)($adopted->token() === $token) . ' refresh=' . (int)$adopted->refresh(30)
           . ' inherited_release=' . var_export($lock->release(), true);
        raw_redis('SET', $prefix . "result:$how", $r);
        switch ($how) {
            case 'release':
                raw_redis('APPEND', $prefix . "result:$how", ' release=' . var_export($adopted->release(), true));
                return 0;
            case 'unset':
                unset($adopted);
                raw_redis('APPEND', $prefix . "result:$how", ' after_unset=' . raw_redis('EXISTS', $prefix . "job:$how"));
                return 0;
            case 'request-end':
                $GLOBALS['adopted'] = $adopted;
                return 0;
            case 'fatal':
                $GLOBALS['adopted'] = $adopted;
                trigger_error('child dies', E_USER_ERROR);   // a fatal error, not catchable
        }
    });
    $st = wait_child($pid);
    printf("%-11s child %s: %s; key left=%d; parent: isAcquired=%s release=%s\n", $how, $st,
        raw_redis('GET', $prefix . "result:$how"), raw_redis('EXISTS', $prefix . "job:$how"),
        var_export($lock->isAcquired(), true), var_export($lock->release(), true));
}
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_102:');
?>
--EXPECT--
release     child exit=0: same_token=1 refresh=1 inherited_release=false release=true; key left=0; parent: isAcquired=false release=false
unset       child exit=0: same_token=1 refresh=1 inherited_release=false after_unset=0; key left=0; parent: isAcquired=false release=false
request-end child exit=0: same_token=1 refresh=1 inherited_release=false; key left=0; parent: isAcquired=false release=false
fatal       child exit=255: same_token=1 refresh=1 inherited_release=false; key left=0; parent: isAcquired=false release=false
