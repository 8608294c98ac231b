<?php

declare(strict_types=1);

namespace DistLock\Laravel;

use DistLock\Laravel\Console\ReleaseCommand;
use DistLock\Laravel\Console\StatusCommand;
use Illuminate\Cache\CacheManager;
use Illuminate\Support\ServiceProvider;

/**
 * Registers distlock in a Laravel app (auto-discovered):
 *  - config/distlock.php (publish tag "distlock-config");
 *  - app(\DistLock::class): one client per process, from config/distlock.php;
 *  - the "distlock" cache driver (DistLockStore);
 *  - the artisan commands distlock:status and distlock:release;
 *  - under Laravel Octane, \DistLock::endRequest() after each request and task (EndRequest);
 *  - Laravel events of lock operations (Events\*), of every lock of the process once the app has booted (LockEventBridge).
 * Building the client opens no connection (the extension connects lazily).
 */
class DistLockServiceProvider extends ServiceProvider
{
    /** Container id of the client the LockTrait uses (prefix '': its keys are full keys). */
    public const TRAIT_CLIENT = 'distlock.trait';

    public function register(): void
    {
        $this->mergeConfigFrom(__DIR__ . '/../config/distlock.php', 'distlock');

        $this->app->bind(ClientFactory::class, fn ($app) => new ClientFactory(
            (array) $app['config']['distlock'],
            (array) ($app['config']['database.redis'] ?? [])
        ));
        $this->app->singleton(\DistLock::class, fn ($app) => self::withEvents($app, $app->make(ClientFactory::class)->make()));
        $this->app->singleton(self::TRAIT_CLIENT, fn ($app) => self::withEvents($app, $app->make(ClientFactory::class)->make(['prefix' => ''])));

        // Mode 'always': the observer from now on, so that locks taken while the app boots are seen too.
        if (($this->app['config']['distlock.events'] ?? 'auto') === 'always') {
            LockEventBridge::sync($this->app);
        }

        $this->app->afterResolving('cache', fn (CacheManager $cache) => $this->extendCache($cache));
        if ($this->app->resolved('cache')) {
            $this->extendCache($this->app->make('cache'));
        }
    }

    public function boot(): void
    {
        $this->publishes([
            __DIR__ . '/../config/distlock.php' => $this->app->configPath('distlock.php'),
        ], 'distlock-config');

        if ($this->app->runningInConsole()) {
            $this->commands([StatusCommand::class, ReleaseCommand::class]);
        }

        // After every provider's boot (EventServiceProvider, Telescope, Pulse, the app's):
        // the lock events' observer, process-wide, whatever listens by then (LockEventBridge).
        $this->app->booted(fn ($app) => LockEventBridge::sync($app));

        if (EndRequest::octaneInstalled()) {
            foreach (EndRequest::OCTANE_EVENTS as $event) {
                $this->app['events']->listen($event, [EndRequest::class, 'handle']);
            }
        }
    }

    private function extendCache(CacheManager $cache): void
    {
        $app = $this->app;
        $cache->extend('distlock', function ($unusedApp, array $config) use ($app, $cache) {
            // Laravel binds this closure to the CacheManager: no \$this/self of the provider here.
            $name = (string) ($config['name'] ?? DistLockServiceProvider::storeNameOf($app, $config));
            $store = (new StoreFactory($app))->make($cache, $name, $config);
            return $cache->repository($store, $config);
        });
    }

    /**
     * Returns $client after a look for lock-event listeners added since the app booted
     * (a client is built on first use, once per process). @internal
     */
    public static function withEvents($app, \DistLock $client): \DistLock
    {
        LockEventBridge::sync($app);
        return $client;
    }

    /** The name of the store whose config is $config (Laravel before 11 does not pass it). @internal */
    public static function storeNameOf($app, array $config): string
    {
        foreach ((array) $app['config']['cache.stores'] as $name => $c) {
            if ($c === $config) {
                return (string) $name;
            }
        }
        return 'distlock';
    }
}
