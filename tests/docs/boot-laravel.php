<?php
// tests/docs/boot-laravel.php — the Laravel application a block of the
// Laravel docs runs in: the laravel suite's test app
// (integrations/laravel/tests/app, copied into the Composer project that
// tests/docs/run.sh makes, Laravel 12 with distlock/laravel discovered), its
// default cache store `distlock` on the docs' server, booted as an Artisan
// command boots it. Loaded after that project's autoloader; defines no
// variable (the block sees the facades, by their short names too, nothing else).
(static function (): void {
    foreach (['DISTLOCK_URL' => 'redis://127.0.0.1:6379', 'CACHE_STORE' => 'distlock', 'REDIS_HOST' => '127.0.0.1',
              'REDIS_PORT' => '6379', 'DISTLOCK_EVENTS' => 'auto'] as $k => $v) {
        putenv("$k=$v");
        $_ENV[$k] = $_SERVER[$k] = $v;
    }
    $app = require dirname(getenv('DOCS_VENDOR_LARAVEL'), 2) . '/bootstrap/app.php';
    $app->make(Illuminate\Contracts\Console\Kernel::class)->bootstrap();
    // The facades' short names (Cache::, Event::, Log::) as a Laravel skeleton has them.
    Illuminate\Foundation\AliasLoader::getInstance(Illuminate\Support\Facades\Facade::defaultAliases()->all())->register();
})();
