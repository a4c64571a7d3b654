"""Write ``provider/ec2.aws.example.io_instances.yaml``: a large provider CRD in upjet's shape.

Run ``python tests/data/schemas/make_provider_crd.py`` to regenerate it.

The file is written for crossfn's tests (Apache-2.0, as the project). It has
the shape upjet gives every managed-resource CRD of the big Crossplane
providers: ``spec.forProvider``/``initProvider``/``managementPolicies``/
``providerConfigRef``/``deletionPolicy``/``writeConnectionSecretToRef``/
``publishConnectionDetailsTo``, ``status.atProvider`` and conditions,
reference and selector fields, and the CEL rule upjet emits for a required
parameter. The fields are those of an EC2 instance, typed as upjet types them,
in two served versions; no provider's file was copied.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).parent / "provider" / "ec2.aws.example.io_instances.yaml"


def s(desc: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": desc, **extra}


def n(desc: str) -> dict[str, Any]:
    return {"type": "number", "description": desc}


def b(desc: str) -> dict[str, Any]:
    return {"type": "boolean", "description": desc}


def obj(desc: str, props: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "description": desc, "properties": props, **extra}


def arr(desc: str, items: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "array", "description": desc, "items": items, **extra}


def strmap(desc: str) -> dict[str, Any]:
    return {
        "type": "object",
        "description": desc,
        "additionalProperties": {"type": "string"},
        "x-kubernetes-map-type": "granular",
    }


def policy() -> dict[str, Any]:
    return obj(
        "Policies for referencing.",
        {
            "resolution": s(
                "Resolution specifies whether resolution of this reference is required.",
                default="Required",
                enum=["Required", "Optional"],
            ),
            "resolve": s(
                "Resolve specifies when this reference should be resolved.", enum=["Always", "IfNotPresent"]
            ),
        },
    )


def ref(desc: str) -> dict[str, Any]:
    return obj(desc, {"name": s("Name of the referenced object."), "policy": policy()}, required=["name"])


def selector(desc: str) -> dict[str, Any]:
    return obj(
        desc,
        {
            "matchControllerRef": b(
                "MatchControllerRef ensures an object with the same controller reference as the selecting object is selected."
            ),
            "matchLabels": strmap("MatchLabels ensures an object with matching labels is selected."),
            "policy": policy(),
        },
    )


def block_device(root: bool) -> dict[str, Any]:
    props = {
        "deleteOnTermination": b("Whether the volume should be destroyed on instance termination."),
        "encrypted": b("Whether to enable volume encryption."),
        "iops": n("Amount of provisioned IOPS."),
        "kmsKeyId": s("ARN of the KMS key to use when encrypting the volume."),
        "tags": strmap("Map of tags to assign to the device."),
        "throughput": n("Throughput to provision for a volume in mebibytes per second (MiB/s)."),
        "volumeSize": n("Size of the volume in gibibytes (GiB)."),
        "volumeType": s("Type of volume. Valid values include standard, gp2, gp3, io1, io2, sc1, or st1."),
    }
    if not root:
        props["deviceName"] = s("Name of the device to mount.")
        props["snapshotId"] = s("Snapshot ID to mount.")
    return obj("Block device.", props)


def parameters(with_region: bool) -> dict[str, Any]:
    props: dict[str, Any] = {
        "ami": s("AMI to use for the instance."),
        "associatePublicIpAddress": b("Whether to associate a public IP address with an instance in a VPC."),
        "availabilityZone": s("AZ to start the instance in."),
        "capacityReservationSpecification": arr(
            "Describes an instance's Capacity Reservation targeting option.",
            obj(
                "",
                {
                    "capacityReservationPreference": s(
                        "Indicates the instance's Capacity Reservation preferences."
                    ),
                    "capacityReservationTarget": arr(
                        "Information about the target Capacity Reservation.",
                        obj(
                            "",
                            {
                                "capacityReservationId": s("ID of the Capacity Reservation."),
                                "capacityReservationResourceGroupArn": s("ARN of the resource group."),
                            },
                        ),
                    ),
                },
            ),
        ),
        "cpuCoreCount": n("Sets the number of CPU cores for an instance."),
        "cpuOptions": arr(
            "The CPU options for the instance.",
            obj(
                "",
                {
                    "amdSevSnp": s("Indicates whether to enable the instance for AMD SEV-SNP."),
                    "coreCount": n("Sets the number of CPU cores."),
                    "threadsPerCore": n("Sets the number of CPU threads per core."),
                },
            ),
        ),
        "cpuThreadsPerCore": n("Number of threads per CPU core."),
        "creditSpecification": arr(
            "Configuration block for customizing the credit specification.",
            obj("", {"cpuCredits": s("Credit option for CPU usage.")}),
        ),
        "disableApiStop": b("If true, enables EC2 Instance Stop Protection."),
        "disableApiTermination": b("If true, enables EC2 Instance Termination Protection."),
        "ebsBlockDevice": arr(
            "One or more configuration blocks with additional EBS block devices.", block_device(False)
        ),
        "ebsOptimized": b("If true, the launched EC2 instance will be EBS-optimized."),
        "enclaveOptions": arr(
            "Enable Nitro Enclaves on launched instances.",
            obj("", {"enabled": b("Whether Nitro Enclaves will be enabled.")}),
        ),
        "ephemeralBlockDevice": arr(
            "One or more configuration blocks to customize Ephemeral volumes.",
            obj(
                "",
                {
                    "deviceName": s("Name of the block device to mount."),
                    "noDevice": b("Suppresses the specified device."),
                    "virtualName": s("Instance Store Device Name."),
                },
            ),
        ),
        "getPasswordData": b("If true, wait for password data to become available and retrieve it."),
        "hibernation": b("If true, the launched EC2 instance will support hibernation."),
        "hostId": s("ID of a dedicated host that the instance will be assigned to."),
        "hostResourceGroupArn": s("ARN of the host resource group in which to launch the instances."),
        "iamInstanceProfile": s("IAM Instance Profile to launch the instance with."),
        "instanceInitiatedShutdownBehavior": s("Shutdown behavior for the instance."),
        "instanceMarketOptions": arr(
            "Describes the market (purchasing) option for the instances.",
            obj(
                "",
                {
                    "marketType": s("Type of market for the instance."),
                    "spotOptions": arr(
                        "Block to configure the options for Spot Instances.",
                        obj(
                            "",
                            {
                                "instanceInterruptionBehavior": s(
                                    "The behavior when a Spot Instance is interrupted."
                                ),
                                "maxPrice": s(
                                    "The maximum hourly price that you're willing to pay for a Spot Instance."
                                ),
                                "spotInstanceType": s("The Spot Instance request type."),
                                "validUntil": s(
                                    "The end date of the request, in UTC format (YYYY-MM-DDTHH:MM:SSZ)."
                                ),
                            },
                        ),
                    ),
                },
            ),
        ),
        "instanceType": s("Instance type to use for the instance."),
        "ipv6AddressCount": n("Number of IPv6 addresses to associate with the primary network interface."),
        "ipv6Addresses": arr("Specify one or more IPv6 addresses.", {"type": "string"}),
        "keyName": s("Key name of the Key Pair to use for the instance."),
        "launchTemplate": arr(
            "Specifies a Launch Template to configure the instance.",
            obj(
                "",
                {
                    "id": s("ID of the launch template."),
                    "name": s("Name of the launch template."),
                    "version": s("Template version."),
                },
            ),
        ),
        "maintenanceOptions": arr(
            "Maintenance and recovery options for the instance.",
            obj("", {"autoRecovery": s("Automatic recovery behavior of the Instance.")}),
        ),
        "metadataOptions": arr(
            "Customize the metadata options of the instance.",
            obj(
                "",
                {
                    "httpEndpoint": s("Whether the metadata service is available."),
                    "httpProtocolIpv6": s(
                        "Whether the IPv6 endpoint for the instance metadata service is enabled."
                    ),
                    "httpPutResponseHopLimit": n(
                        "Desired HTTP PUT response hop limit for instance metadata requests."
                    ),
                    "httpTokens": s("Whether or not the metadata service requires session tokens."),
                    "instanceMetadataTags": s(
                        "Enables or disables access to instance tags from the instance metadata service."
                    ),
                },
            ),
        ),
        "monitoring": b("If true, the launched EC2 instance will have detailed monitoring enabled."),
        "networkInterface": arr(
            "Customize network interfaces to be attached at instance boot time.",
            obj(
                "",
                {
                    "deleteOnTermination": b(
                        "Whether or not to delete the network interface on instance termination."
                    ),
                    "deviceIndex": n("Integer index of the network interface attachment."),
                    "networkCardIndex": n("Integer index of the network card."),
                    "networkInterfaceId": s("ID of the network interface to attach."),
                },
                required=["deviceIndex"],
            ),
        ),
        "placementGroup": s("Placement Group to start the instance in."),
        "placementPartitionNumber": n("Number of the partition the instance is in."),
        "privateDnsNameOptions": arr(
            "Options for the instance hostname.",
            obj(
                "",
                {
                    "enableResourceNameDnsARecord": b(
                        "Indicates whether to respond to DNS queries for instance hostnames with DNS A records."
                    ),
                    "enableResourceNameDnsAaaaRecord": b(
                        "Indicates whether to respond to DNS queries for instance hostnames with DNS AAAA records."
                    ),
                    "hostnameType": s("Type of hostname for Amazon EC2 instances."),
                },
            ),
        ),
        "privateIp": s("Private IP address to associate with the instance in a VPC."),
        "rootBlockDevice": arr(
            "Configuration block to customize details about the root block device of the instance.",
            block_device(True),
        ),
        "secondaryPrivateIps": arr(
            "List of secondary private IPv4 addresses to assign to the instance's primary network interface.",
            {"type": "string"},
            **{"x-kubernetes-list-type": "set"},
        ),
        "securityGroups": arr(
            "List of security group names to associate with.",
            {"type": "string"},
            **{"x-kubernetes-list-type": "set"},
        ),
        "sourceDestCheck": b(
            "Controls if traffic is routed to the instance when the destination address does not match the instance."
        ),
        "subnetId": s("VPC Subnet ID to launch in."),
        "subnetIdRef": ref("Reference to a Subnet in ec2 to populate subnetId."),
        "subnetIdSelector": selector("Selector for a Subnet in ec2 to populate subnetId."),
        "tags": strmap("Key-value map of resource tags."),
        "tenancy": s("Tenancy of the instance (if the instance is running in a VPC)."),
        "userData": s("User data to provide when launching the instance."),
        "userDataBase64": s("Can be used instead of userData to pass base64-encoded binary data directly."),
        "userDataReplaceOnChange": b(
            "When used in combination with userData or userDataBase64 will trigger a destroy and recreate when set to true."
        ),
        "volumeTags": strmap("Map of tags to assign, at instance-creation time, to root and EBS volumes."),
        "vpcSecurityGroupIdRefs": arr(
            "References to SecurityGroup in ec2 to populate vpcSecurityGroupIds.",
            ref("A Reference to a named object."),
        ),
        "vpcSecurityGroupIdSelector": selector(
            "Selector for a list of SecurityGroup in ec2 to populate vpcSecurityGroupIds."
        ),
        "vpcSecurityGroupIds": arr(
            "List of security group IDs to associate with.",
            {"type": "string"},
            **{"x-kubernetes-list-type": "set"},
        ),
    }
    if with_region:
        props["region"] = s("Region is the region you'd like your resource to be created in.")
    return props


def observation() -> dict[str, Any]:
    props = copy.deepcopy(parameters(with_region=False))
    for key in ("subnetIdRef", "subnetIdSelector", "vpcSecurityGroupIdRefs", "vpcSecurityGroupIdSelector"):
        del props[key]
    props.update(
        {
            "arn": s("ARN of the instance."),
            "id": s("ID of the instance."),
            "instanceState": s("State of the instance."),
            "outpostArn": s("ARN of the Outpost the instance is assigned to."),
            "passwordData": s("Base-64 encoded encrypted password data for the instance."),
            "primaryNetworkInterfaceId": s("ID of the instance's primary network interface."),
            "privateDns": s("Private DNS name assigned to the instance."),
            "publicDns": s("Public DNS name assigned to the instance."),
            "publicIp": s("Public IP address assigned to the instance, if applicable."),
            "tagsAll": strmap(
                "A map of tags assigned to the resource, including those inherited from the provider."
            ),
        }
    )
    return props


def spec() -> dict[str, Any]:
    return obj(
        "InstanceSpec defines the desired state of Instance",
        {
            "deletionPolicy": s(
                "DeletionPolicy specifies what will happen to the underlying external when this managed resource is deleted.",
                default="Delete",
                enum=["Orphan", "Delete"],
            ),
            "forProvider": obj("", parameters(with_region=True)),
            "initProvider": obj(
                "THIS IS A BETA FIELD. It will be honored unless the Management Policies feature flag is disabled.",
                parameters(with_region=False),
            ),
            "managementPolicies": arr(
                "THIS IS A BETA FIELD. A ManagementAction represents an action that the Crossplane controllers can take on an external resource.",
                {"type": "string", "enum": ["Observe", "Create", "Update", "Delete", "LateInitialize", "*"]},
                default=["*"],
            ),
            "providerConfigRef": obj(
                "ProviderConfigReference specifies how the provider that will be used to create, observe, update, and delete this managed resource should be configured.",
                {"name": s("Name of the referenced object."), "policy": policy()},
                default={"name": "default"},
                required=["name"],
            ),
            "publishConnectionDetailsTo": obj(
                "PublishConnectionDetailsTo specifies the connection secret config which contains a name, metadata and a reference to secret store config.",
                {
                    "configRef": obj(
                        "SecretStoreConfigRef specifies which secret store config should be used for this ConnectionSecret.",
                        {"name": s("Name of the referenced object."), "policy": policy()},
                        default={"name": "default"},
                        required=["name"],
                    ),
                    "metadata": obj(
                        "Metadata is the metadata for connection secret.",
                        {
                            "annotations": strmap(
                                "Annotations are the annotations to be added to connection secret."
                            ),
                            "labels": strmap("Labels are the labels/tags to be added to connection secret."),
                            "type": s("Type is the SecretType for the connection secret."),
                        },
                    ),
                    "name": s("Name is the name of the connection secret."),
                },
                required=["name"],
            ),
            "writeConnectionSecretToRef": obj(
                "WriteConnectionSecretToReference specifies the namespace and name of a Secret to which any connection details for this managed resource should be written.",
                {"name": s("Name of the secret."), "namespace": s("Namespace of the secret.")},
                required=["name", "namespace"],
            ),
        },
        required=["forProvider"],
    )


def status() -> dict[str, Any]:
    return obj(
        "InstanceStatus defines the observed state of Instance.",
        {
            "atProvider": obj("", observation()),
            "conditions": {
                "description": "Conditions of the resource.",
                "type": "array",
                "items": obj(
                    "A Condition that may apply to a resource.",
                    {
                        "lastTransitionTime": s(
                            "LastTransitionTime is the last time this condition transitioned from one status to another.",
                            format="date-time",
                        ),
                        "message": s(
                            "A Message containing details about this condition's last transition from one status to another, if any."
                        ),
                        "observedGeneration": {
                            "type": "integer",
                            "format": "int64",
                            "description": "ObservedGeneration represents the .metadata.generation that the condition was set based upon.",
                        },
                        "reason": s(
                            "A Reason for this condition's last transition from one status to another."
                        ),
                        "status": s("Status of this condition; is it currently True, False, or Unknown?"),
                        "type": s(
                            "Type of this condition. At most one of each condition type may apply to a resource at any point in time."
                        ),
                    },
                    required=["lastTransitionTime", "reason", "status", "type"],
                ),
                "x-kubernetes-list-map-keys": ["type"],
                "x-kubernetes-list-type": "map",
            },
            "observedGeneration": {
                "type": "integer",
                "format": "int64",
                "description": "ObservedGeneration is the latest metadata.generation which resulted in either a ready state, or stalled due to error it can not recover from without human intervention.",
            },
        },
    )


def version(name: str, storage: bool) -> dict[str, Any]:
    rule = (
        "!('*' in self.managementPolicies || 'Create' in self.managementPolicies || "
        "'Update' in self.managementPolicies) || has(self.forProvider.region) || "
        "(has(self.initProvider) && has(self.initProvider.region))"
    )
    return {
        "name": name,
        "served": True,
        "storage": storage,
        "subresources": {"status": {}},
        "additionalPrinterColumns": [
            {
                "jsonPath": ".status.conditions[?(@.type=='Synced')].status",
                "name": "SYNCED",
                "type": "string",
            },
            {"jsonPath": ".status.conditions[?(@.type=='Ready')].status", "name": "READY", "type": "string"},
            {
                "jsonPath": ".metadata.annotations.crossplane\\.io/external-name",
                "name": "EXTERNAL-NAME",
                "type": "string",
            },
            {"jsonPath": ".metadata.creationTimestamp", "name": "AGE", "type": "date"},
        ],
        "schema": {
            "openAPIV3Schema": {
                "description": "Instance is the Schema for the Instances API. Provides an EC2 instance resource.",
                "type": "object",
                "required": ["spec"],
                "properties": {
                    "apiVersion": s(
                        "APIVersion defines the versioned schema of this representation of an object."
                    ),
                    "kind": s(
                        "Kind is a string value representing the REST resource this object represents."
                    ),
                    "metadata": {"type": "object"},
                    "spec": {
                        **spec(),
                        "x-kubernetes-validations": [
                            {"message": "spec.forProvider.region is a required parameter", "rule": rule}
                        ],
                    },
                    "status": status(),
                },
            }
        },
    }


def main() -> None:
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": "instances.ec2.aws.example.io",
            "annotations": {"controller-gen.kubebuilder.io/version": "v0.16.3"},
        },
        "spec": {
            "group": "ec2.aws.example.io",
            "names": {
                "categories": ["crossplane", "managed", "aws"],
                "kind": "Instance",
                "listKind": "InstanceList",
                "plural": "instances",
                "singular": "instance",
            },
            "scope": "Cluster",
            "versions": [version("v1beta1", False), version("v1beta2", True)],
        },
    }
    OUT.parent.mkdir(exist_ok=True)
    header = (
        "# Generated by tests/data/schemas/make_provider_crd.py (see README.md there). Do not edit.\n---\n"
    )
    OUT.write_text(header + yaml.safe_dump(crd, sort_keys=True, width=120))


if __name__ == "__main__":
    main()
