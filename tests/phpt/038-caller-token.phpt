--TEST--
lock()/tryLock() with a caller-given owner token: the key's value, reentrancy only under the same token, validation
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
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$p = 'phpt_038:';
$a = new DistLock(test_uri(), ['prefix' => $p]);
$b = new DistLock(test_uri(), ['prefix' => $p]);

// the token is the key's value, binary-safe
$tok = "owner\0with\"quotes]]";
$l = $a->tryLock('t', 5, $tok);
var_dump($l->token() === $tok, raw_redis('GET', "{$p}t") === $tok);
$pt = raw_redis('PTTL', "{$p}t");
echo "PX 5 s: ", var_export($pt > 5000 - 500 * test_slowdown() && $pt <= 5000, true), "\n";

// the same instance and token: reentrant (another handle on the same lease)
$l2 = $a->lock('t', 1, 0, $tok);
var_dump($l2->token() === $tok);
var_dump($l2->release(), raw_redis('GET', "{$p}t") === $tok);   // the outer handle still holds it
// the same instance, another token: another owner, contends
var_dump($a->tryLock('t', 5, 'someone-else'));
// another instance with the same token: the key is taken (Laravel's RedisLock semantics)
var_dump($b->tryLock('t', 5, $tok));
$t0 = microtime(true);
try { $b->lock('t', 5, 0.2, $tok); echo "acquired?!\n"; } catch (DistLock\LockTimeoutException $e) { echo "lock() with the held token waits: timeout\n"; }
var_dump($l->release(), raw_redis('EXISTS', "{$p}t"));

// a waiter with a caller token is woken by a release by token in another process
$h = $a->lock('w', 5);
$token = $h->token();
$pid3 = pcntl_fork();
if ($pid3 === 0) {
    $c = new DistLock(test_uri(), ['prefix' => $p]);
    usleep(300000);
    exit($c->release('w', $token) ? 0 : 1);
}
$w = new DistLock(test_uri(), ['prefix' => $p]);
$t0 = microtime(true);
$got = $w->lock('w', 5, 3, 'waiter-token');
$el = microtime(true) - $t0;
pcntl_waitpid($pid3, $st);
echo "woken by the release: ", var_export($el >= 0.2 && $el < 1.8, true), ", child released: ", pcntl_wexitstatus($st), "\n";
var_dump(raw_redis('GET', "{$p}w"), $got->token());
unset($got);
var_dump(raw_redis('EXISTS', "{$p}w"));     // scoped release still applies to a caller token

// validation
foreach (['' => '', '129 bytes' => str_repeat('x', 129)] as $label => $bad) {
    foreach (['lock' => fn() => $a->lock('v', 1, 0, $bad), 'tryLock' => fn() => $a->tryLock('v', 1, $bad)] as $m => $f) {
        try { $f(); echo "$m accepted?!\n"; } catch (ValueError $e) { echo $e->getMessage(), "\n"; }
    }
}
$l = $a->tryLock('v', 1, str_repeat('y', 128));   // 128 bytes: the maximum
var_dump(strlen($l->token()));
try { $a->tryLock('v', 1, []); } catch (TypeError $e) { echo get_class($e), ": ", $e->getMessage(), "\n"; }
var_dump($a->tryLock('n', 1, null)->token() !== null);   // null: a random token
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_038:');
?>
--EXPECT--
bool(true)
bool(true)
PX 5 s: true
bool(true)
bool(true)
bool(true)
NULL
NULL
lock() with the held token waits: timeout
bool(true)
int(0)
woken by the release: true, child released: 0
string(12) "waiter-token"
string(12) "waiter-token"
int(0)
DistLock::lock(): Argument #4 ($token) must be between 1 and 128 bytes long
DistLock::tryLock(): Argument #3 ($token) must be between 1 and 128 bytes long
DistLock::lock(): Argument #4 ($token) must be between 1 and 128 bytes long
DistLock::tryLock(): Argument #3 ($token) must be between 1 and 128 bytes long
int(128)
TypeError: DistLock::tryLock(): Argument #3 ($token) must be of type ?string, array given
bool(true)
