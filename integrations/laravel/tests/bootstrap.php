<?php
// PHPUnit bootstrap: the scratch app's autoloader (Composer; on Debian's
// Laravel it also loads Debian's autoloaders), the limiter switch when asked
// (limiter-switch.php), the Testbench stand-in, and QueueTestCase when
// Laravel's own tests need it.
$app = getenv('DISTLOCK_TEST_APP') ?: exit("DISTLOCK_TEST_APP is not set\n");
require $app . '/vendor/autoload.php';
if (getenv('DISTLOCK_SWITCH_LIMITER') === '1') {
    require __DIR__ . '/limiter-switch.php';
}
require_once __DIR__ . '/testbench/TestCase.php';
require_once __DIR__ . '/Feature/AppTestCase.php';
require_once __DIR__ . '/Feature/PredisRaw.php';
$laravelTests = getenv('DISTLOCK_LARAVEL_TESTS');
foreach (['Queue/QueueTestCase.php', 'Cache/CacheFunnelTestCase.php'] as $base) {   // (the latter: Laravel 12.5x+)
    if ($laravelTests && is_file("$laravelTests/Integration/$base")) {
        require_once "$laravelTests/Integration/$base";
    }
}
