<?php

declare(strict_types=1);

namespace DistLock\Laravel;

use Illuminate\Cache\CacheManager;
use Illuminate\Cache\RedisStore;
use Illuminate\Contracts\Foundation\Application;

/**
 * Builds the "distlock" cache store from its config/cache.php entry:
 *
 *   'distlock' => [
 *       'driver' => 'distlock',
 *       'store' => 'redis',            // where cache values go
 *       'connection' => 'default',     // Redis connection of the locks (lock_connection wins;
 *                                      // distlock.url, DISTLOCK_URL, wins over both)
 *       'lock_connection' => null,
 *       'prefix' => null,              // null: cache.prefix, as Laravel's Redis store
 *   ],
 *
 * Lock keys are exactly Laravel's RedisLock keys: the Redis connection's
 * key prefix (database.redis.options.prefix, which phpredis applies to every
 * key) + the cache prefix as this Laravel version's RedisStore spells it
 * (8.x appends ':', 11+ does not) + the name.
 */
final class StoreFactory
{
    public function __construct(private Application $app)
    {
    }

    /**
     * @param array<string, mixed> $config the store's config/cache.php entry
     * @throws InvalidConfigurationException
     */
    public function make(CacheManager $cache, string $storeName, array $config): DistLockStore
    {
        $valuesName = (string) ($config['store'] ?? 'redis');
        if ($valuesName === $storeName || ($this->app['config']["cache.stores.$valuesName.driver"] ?? null) === 'distlock') {
            throw new InvalidConfigurationException(
                "distlock: cache.stores.$storeName.store must name a store that keeps values (e.g. a \"redis\" driver store), not a distlock store"
            );
        }
        if (!is_array($this->app['config']["cache.stores.$valuesName"] ?? null)) {
            throw new InvalidConfigurationException("distlock: cache.stores.$storeName.store names \"$valuesName\", which is not defined in config/cache.php");
        }
        $values = $cache->store($valuesName)->getStore();

        $connection = (string) ($config['lock_connection'] ?? $config['connection'] ?? 'default');
        $factory = $this->app->make(ClientFactory::class);
        $cachePrefix = (new RedisStore($this->app['redis'], $config['prefix'] ?? $this->app['config']['cache.prefix'] ?? '', $connection))->getPrefix();
        $client = $factory->forStore($connection, ['prefix' => $factory->redisKeyPrefix($connection) . $cachePrefix]);

        $forever = (float) ($config['forever_ttl'] ?? $this->app['config']['distlock.forever_ttl'] ?? 86400);
        if (!($forever > 0)) {
            throw new InvalidConfigurationException('distlock: distlock.forever_ttl (DISTLOCK_FOREVER_TTL) must be a number of seconds > 0');
        }
        return new DistLockStore($values, DistLockServiceProvider::withEvents($this->app, $client), $forever, $connection);
    }
}
