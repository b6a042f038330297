/*
 * tessera_abi.h — the C boundary between the Tessera host and a plugin library.
 *
 * Everything a host must know about a plugin before it trusts Swift code crosses here, as plain
 * C structs. The rules are SQLite's and GStreamer's: every struct starts with its own size, fields
 * are only ever appended, and reserved words are kept for later. A reader never reads past the size
 * the writer declared.
 *
 * Two things live in every plugin library:
 *  1. The stamp: a `tessera_stamp_t` record in the ELF section named `tessera_stamp`, compiled in
 *     from the SDK's `TesseraPluginStamp` target. The host reads it from the file *without loading
 *     it* (gate 1) and refuses a library stamped for another SDK major, a newer SDK minor, or
 *     another compiler.
 *  2. The entry symbol `tessera_plugin_entry`: the only symbol the host looks up after dlopen. The
 *     host passes a `tessera_host_t` and gets back a `tessera_descriptor_t` (gate 3: the handshake).
 *
 * That is a Swift plugin's boundary. A plugin in any other language speaks the stable C ABI of
 * tessera_plugin.h instead: the same stamp section (naming no compiler), and its own entry symbol.
 *
 * Version rule: the SDK ABI major must be equal; the plugin's minor must be <= the host's minor.
 */
#ifndef TESSERA_ABI_H
#define TESSERA_ABI_H

#include <stdint.h>

/* The SDK ABI version this header describes. A plugin build may not override these.
 * History: 1.0 storage, clock, operations; 1.1 adds notifications, events and the location feed
 * (PluginNotifications, PluginEvents, WriteBatch.emit, LocationFix, PluginLocationFeed, Geodesy);
 * 1.2 adds the HTTP client and secrets (PluginHTTPClient, OutboundRequest, PluginSecrets, Secret) and
 * WriteBatch.inSpace for synced tables; 1.3 adds RemoteChanges.refused and droppedSpaces, and the
 * sync capability (PluginSync, CellConflict); 1.4 adds the files capability (PluginFiles, PluginFileWriter,
 * FileDescriptor, FileLink), spaces a plugin manages (PluginSpaces through PluginSync.spaces) and
 * notifications to a space's members (NotificationRecipient.spaceOthers); 1.5 adds per-plugin roles
 * (PluginSpaces.invite(to:role:pluginRole:person:expiresIn:) and setRole(_:pluginRole:of:in:), pluginRole
 * on SyncSpace, SpaceMember and SpaceInvitation, PluginError.Code.tableReadOnly and notRowCreator); 1.6
 * adds who is logged in on the device (PluginSpaces.currentPerson(), LoggedInPerson) and mail through the
 * hub (PluginSync.sendMail, HubMailMessage, HubMailAttachment, HubMailReceipt, and the PluginError codes
 * invalidRecipient, invalidSubject, textTooLong, invalidAttachmentName, invalidAttachment,
 * attachmentTypeNotAllowed, attachmentTooLarge, mailRateExceeded); 1.7 adds time-ordered record ids
 * (RecordID.timeOrdered(at:)); 1.8 adds notification priorities and catalogue messages
 * (NotificationRequest.priority and message, NotificationPriority, NotificationMessage, NotificationValue);
 * 1.9 adds the logged-in person's display name (LoggedInPerson.displayName); 1.10 adds SHA-256, HMAC and
 * PBKDF2 (SHA256 with authenticationCode, derivedKey and constantTimeEquals), civil dates (CivilDate,
 * CivilMonth, CivilCalendar) and a refusal's reason (PluginError.reason, PluginError.init(_:_:field:reason:),
 * PluginError.Code as a string literal). */
#ifndef TESSERA_SDK_ABI_MAJOR
#define TESSERA_SDK_ABI_MAJOR 1u
#endif
#ifndef TESSERA_SDK_ABI_MINOR
#define TESSERA_SDK_ABI_MINOR 10u
#endif

/* 'TSST' little-endian: marks a stamp record. */
#define TESSERA_STAMP_MAGIC 0x54535354u
/* 'TSSD' little-endian: marks a descriptor. */
#define TESSERA_DESCRIPTOR_MAGIC 0x44535354u

/* The ELF section that holds the stamp, and the entry symbol's name. */
#define TESSERA_STAMP_SECTION "tessera_stamp"
#define TESSERA_ENTRY_SYMBOL "tessera_plugin_entry"

/* Room for the compiler identity: clang's version string with its source revision. */
#define TESSERA_TOOLCHAIN_MAX 120

/* The stamp, read from the file before loading. */
typedef struct tessera_stamp {
    uint32_t magic;                          /* TESSERA_STAMP_MAGIC */
    uint32_t size;                           /* sizeof(tessera_stamp_t) of the writer */
    uint32_t sdk_abi_major;
    uint32_t sdk_abi_minor;
    char toolchain[TESSERA_TOOLCHAIN_MAX];   /* NUL-terminated compiler identity; empty in a C-ABI plugin */
    uint32_t reserved[4];                    /* a C-ABI plugin's C ABI major and minor in [0] and [1]
                                                (tessera_plugin.h); 0 in a Swift plugin */
} tessera_stamp_t;

/* What the host tells the plugin at the handshake. */
typedef struct tessera_host {
    uint32_t size;                           /* sizeof(tessera_host_t) of the host */
    uint32_t sdk_abi_major;
    uint32_t sdk_abi_minor;
    uint32_t reserved0;
    const char *host_version;                /* NUL-terminated SemVer of the host */
    void *reserved[4];
} tessera_host_t;

/* What the plugin answers. `factory` is an owned (+1) reference to a TesseraSDK.PluginFactory. */
typedef struct tessera_descriptor {
    uint32_t size;                           /* sizeof(tessera_descriptor_t) of the plugin */
    uint32_t magic;                          /* TESSERA_DESCRIPTOR_MAGIC */
    uint32_t sdk_abi_major;                  /* baked in when the plugin was compiled */
    uint32_t sdk_abi_minor;
    const char *plugin_id;                   /* NUL-terminated; must equal the manifest's id */
    void *factory;
    void *reserved[4];
} tessera_descriptor_t;

/* The signature of `tessera_plugin_entry`. */
typedef const tessera_descriptor_t *(*tessera_entry_fn)(const tessera_host_t *host);

/* Defined (hidden) by the TesseraPluginStamp target that every plugin links: the plugin's own stamp.
 * Declared weak so that images which never call it (the SDK library itself) link without it; in a
 * plugin that forgot the stamp it is NULL, and the host has refused such a library at gate 1 anyway. */
__attribute__((weak)) const tessera_stamp_t *tessera_plugin_stamp(void);

#endif /* TESSERA_ABI_H */
