--TEST--
fork(): children that exit in different ways never release the parent's lock; the instance reconnects in the child
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
?>
--INI--
max_execution_time=0
pcre.jit=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$prefix = 'phpt_100:';
raw_redis_del_prefix($prefix);

$redisPort = (int)test_host_port()[1];
$before = own_tcp_ports_to($redisPort);          // raw_redis()'s own connection
$dl = new DistLock(test_uri(), ['prefix' => $prefix]);
$lock = $dl->lock('parent', 600, 1);
$token = $lock->token();
// the extension's connection, to watch it in CLIENT LIST
$mine = array_values(array_diff(own_tcp_ports_to($redisPort), $before));
echo "parent connections made by the extension: ", count($mine), "\n";
$modes = ['return', 'exit', 'fatal', 'exception', 'release', 'e_error'];
$expectStatus = ['return' => 'exit=0', 'exit' => 'exit=3', 'fatal' => 'exit=255',
                 'exception' => 'exit=255', 'release' => 'exit=0', 'e_error' => 'exit=255'];
$held = 0;

for ($i = 0; $i < 20; $i++) {
    $mode = $modes[$i % count($modes)];
    $dl->forceRelease('nothing');                 // the parent's last command: DEL
    $e0 = client_entry($mine[0]);
    $pid = pcntl_fork();
    if ($pid < 0) {
        die("fork failed\n");
    }
    if ($pid === 0) {
        // child: nothing it prints may reach the test output
        ini_set('display_errors', '0');
        ini_set('log_errors', '0');
        $r = [];
        try {
            // the inherited instance must reconnect, not write to the parent's socket
            $r[] = 'isLocked=' . (int)$dl->isLocked('parent');
            // the child is another owner: no reentrant handle on the parent's lease
            $r[] = 'parentBusy=' . (int)($dl->tryLock('parent', 10) === null);
            $other = $dl->tryLock("child:$i", 10);
            $r[] = 'try=' . (int)($other !== null);
            $r[] = 'rel=' . (int)($other !== null && $other->release());
            // a lock of the child's own, held until the child dies
            $GLOBALS['childHeld'] = $dl->lock("held:$i", 60, 1);
            $r[] = 'own=' . (int)(raw_redis('GET', $prefix . "held:$i") === $GLOBALS['childHeld']->token());
            if ($mode === 'release') {
                $r[] = 'prel=' . var_export($lock->release(), true);
            }
        } catch (Throwable $t) {
            $r[] = get_class($t) . ': ' . $t->getMessage();
        }
        raw_redis('HSET', $prefix . 'results', $i, implode(' ', $r));
        switch ($mode) {
            case 'return':
                unset($lock);     // the child's copy of the handle goes out of scope
                return;           // normal end of the script
            case 'exit':
                exit(3);          // request end with the handle still referenced
            case 'fatal':
                distlock_phpt_no_such_function();
            case 'exception':
                throw new RuntimeException('child dies');
            case 'release':
                exit(0);
            case 'e_error':
                trigger_error('child dies', E_USER_ERROR);   // a fatal error (bailout)
        }
    }
    $status = wait_child($pid);
    // not a byte from the child on the parent's connection: same client, last command still DEL
    $e1 = client_entry($mine[0]);
    $untouched = $e0 !== null && $e1 !== null && $e1['id'] === $e0['id'] && $e1['cmd'] === 'del';
    $ok = $lock->isAcquired() && raw_redis('GET', $prefix . 'parent') === $token;
    $held += (int)$ok;
    printf("%2d %-9s %s %s child_lock_left=%d parent_conn_untouched=%d parent_holds=%d\n", $i, $mode,
        $status === $expectStatus[$mode] ? 'status-ok' : "status-BAD($status)",
        raw_redis('HGET', $prefix . 'results', $i), raw_redis('EXISTS', $prefix . "held:$i"), $untouched, $ok);
}
echo "parent still holds: $held/20\n";
$pttl = raw_redis('PTTL', $prefix . 'parent');
var_dump($pttl > 400000 && $pttl <= 600000);   // still the parent's lease, with its TTL

// the parent's connection is intact: 2000 commands, 0 errors
$errors = 0;
for ($i = 0; $i < 500; $i++) {
    try {
        $errors += (int)!$dl->isLocked('parent');
        $l = $dl->tryLock('after', 10);
        $errors += (int)($l === null);
        $errors += (int)!($l !== null && $l->release());
        $errors += (int)$dl->isLocked('after');
    } catch (Throwable $t) {
        $errors++;
        echo get_class($t), ': ', $t->getMessage(), "\n";
    }
}
echo "errors after 2000 commands: $errors\n";
var_dump($lock->release(), raw_redis('EXISTS', $prefix . 'parent'));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_100:');
?>
--EXPECT--
parent connections made by the extension: 1
 0 return    status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
 1 exit      status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
 2 fatal     status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
 3 exception status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
 4 release   status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 prel=false child_lock_left=0 parent_conn_untouched=1 parent_holds=1
 5 e_error   status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
 6 return    status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
 7 exit      status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
 8 fatal     status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
 9 exception status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
10 release   status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 prel=false child_lock_left=0 parent_conn_untouched=1 parent_holds=1
11 e_error   status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
12 return    status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
13 exit      status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
14 fatal     status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
15 exception status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
16 release   status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 prel=false child_lock_left=0 parent_conn_untouched=1 parent_holds=1
17 e_error   status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
18 return    status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
19 exit      status-ok isLocked=1 parentBusy=1 try=1 rel=1 own=1 child_lock_left=0 parent_conn_untouched=1 parent_holds=1
parent still holds: 20/20
bool(true)
errors after 2000 commands: 0
bool(true)
int(0)
