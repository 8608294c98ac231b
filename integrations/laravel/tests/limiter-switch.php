<?php
// Laravel's own tests/Redis/ConcurrentLimiterTest.php runs unmodified with its
// limiter class switched to distlock's: Illuminate\Redis\Limiters\ConcurrencyLimiter
// is made an alias of DistLock\Laravel\Limiters\ConcurrencyLimiter before anything
// loads Laravel's class, so the test's `new ConcurrencyLimiter(...)` and its
// subclass that never releases (ConcurrencyLimiterMockThatDoesntRelease, which
// overrides release()) are distlock's. Loaded by bootstrap.php when
// DISTLOCK_SWITCH_LIMITER=1 (tests/laravel/run.sh sets it for that test only).
if (class_exists('Illuminate\Redis\Limiters\ConcurrencyLimiter', false)) {
    fwrite(STDERR, "limiter-switch.php: Laravel's ConcurrencyLimiter is loaded already; the switch would not apply\n");
    exit(1);
}
class_alias(DistLock\Laravel\Limiters\ConcurrencyLimiter::class, 'Illuminate\Redis\Limiters\ConcurrencyLimiter');
