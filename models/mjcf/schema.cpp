#include "models/mjcf/schema.hpp"

namespace maxsim {

namespace {
using parse::Support;

// name, parent, support, supported / ignored / refused attributes, recursive, alias, note.
// An element's status: Supported when maxsim reads it (its ignored attributes are named by
// `info`), Ignored when maxsim skips it whole, Refused when the loader refuses the file.
const parse::SchemaNode kNodes[] = {
    {"mujoco", -1, Support::Supported, "model", "", "", false, -1, ""},  // 0
    {"compiler", 0, Support::Supported, "autolimits boundmass boundinertia settotalmass balanceinertia strippath coordinate angle eulerseq meshdir discardvisual fusestatic inertiafromgeom inertiagrouprange assetdir", "fitaabb texturedir convexhull usethread exactmeshinertia saveinertial alignfree conflict", "", false, -1, ""},  // 1
    {"lengthrange", 1, Support::Ignored, "", "mode useexisting uselimit accel maxforce timeconst timestep inttotal inteval tolrange interval", "", false, -1, ""},  // 2
    {"option", 0, Support::Supported, "timestep gravity wind density viscosity integrator collision magnetic", "apirate impratio tolerance noslip_tolerance mpr_tolerance o_margin o_solref o_solimp cone jacobian solver iterations noslip_iterations mpr_iterations ls_tolerance o_friction ls_iterations sdf_iterations sdf_initpoints actuatorgroupdisable ccd_tolerance sleep_tolerance ccd_iterations", "", false, -1, ""},  // 3
    {"flag", 3, Support::Supported, "constraint equality frictionloss limit contact passive gravity clampctrl warmstart filterparent actuation refsafe sensor override energy fwdinv sensornoise multiccd midphase eulerdamp invdiscrete island nativeccd", "autoreset spring damper sleep diagexact", "", false, -1, ""},  // 4
    {"size", 0, Support::Ignored, "", "njmax nconmax nstack nuserdata nkey nuser_body nuser_jnt nuser_geom nuser_site nuser_cam nuser_tendon nuser_actuator nuser_sensor memory", "", false, -1, "memory sizes"},  // 5
    {"visual", 0, Support::Ignored, "", "", "", false, -1, "rendering"},  // 6
    {"global", 6, Support::Ignored, "", "fovy ipd azimuth elevation linewidth glow offwidth offheight orthographic realtime ellipsoidinertia bvactive cameraid", "", false, -1, ""},  // 7
    {"quality", 6, Support::Ignored, "", "shadowsize offsamples numslices numstacks numquads", "", false, -1, ""},  // 8
    {"headlight", 6, Support::Ignored, "", "ambient diffuse specular active", "", false, -1, ""},  // 9
    {"map", 6, Support::Ignored, "", "stiffness stiffnessrot force torque alpha fogstart fogend znear zfar haze shadowclip shadowscale actuatortendon", "", false, -1, ""},  // 10
    {"scale", 6, Support::Ignored, "", "forcewidth contactwidth contactheight connect com camera light selectpoint jointlength jointwidth actuatorlength actuatorwidth framelength framewidth constraint slidercrank frustum", "", false, -1, ""},  // 11
    {"rgba", 6, Support::Ignored, "", "fog haze force inertia joint actuator actuatornegative actuatorpositive com camera light selectpoint connect contactpoint contactforce contactfriction contacttorque contactgap rangefinder constraint slidercrank crankbroken frustum bv bvactive", "", false, -1, ""},  // 12
    {"statistic", 0, Support::Ignored, "", "meaninertia meanmass meansize extent center", "", false, -1, "rendering"},  // 13
    {"default", 0, Support::Supported, "class", "", "", true, -1, ""},  // 14
    {"mesh", 14, Support::Supported, "scale", "maxhullvert inertia", "", false, -1, ""},  // 15
    {"material", 14, Support::Supported, "rgba", "texture emission specular shininess reflectance texrepeat texuniform metallic roughness", "", false, -1, ""},  // 16
    {"layer", 16, Support::Ignored, "", "texture role", "", false, -1, "MuJoCo 3"},  // 17
    {"joint", 14, Support::Supported, "type pos axis limited stiffness range ref springref armature damping frictionloss", "group springdamper solreflimit solimplimit solreffriction solimpfriction margin user actuatorfrclimited actuatorfrcrange actuatorgravcomp", "", false, -1, ""},  // 18
    {"geom", 14, Support::Supported, "type pos quat contype conaffinity condim priority size material friction mass density margin fromto axisangle xyaxes zaxis euler mesh rgba group hfield", "shellinertia solmix solref solimp gap fitscale fluidshape fluidcoef user surfacevel adhesion", "", false, -1, ""},  // 19
    {"site", 14, Support::Supported, "name class type pos quat size fromto axisangle xyaxes zaxis euler", "group material rgba user", "", false, -1, ""},  // 20
    {"camera", 14, Support::Ignored, "", "fovy ipd pos quat axisangle xyaxes zaxis euler mode user orthographic resolution focal focalpixel principal principalpixel sensorsize projection output", "", false, -1, ""},  // 21
    {"light", 14, Support::Ignored, "", "pos dir directional castshadow active attenuation cutoff exponent ambient diffuse specular mode bulbradius type intensity range softness", "", false, -1, ""},  // 22
    {"pair", 14, Support::Supported, "condim friction margin", "solref solimp gap solreffriction adhesion", "", false, -1, ""},  // 23
    {"equality", 14, Support::Supported, "active", "solref solimp", "", false, -1, ""},  // 24
    {"tendon", 14, Support::Supported, "limited range springlength stiffness damping armature frictionloss", "group solreflimit solimplimit solreffriction solimpfriction width material margin rgba user", "", false, -1, ""},  // 25
    {"general", 14, Support::Supported, "ctrllimited forcelimited ctrlrange forcerange gear dyntype gaintype biastype gainprm biasprm", "actlimited actrange cranklength user group dynprm actdim actearly nsample interp delay damping armature input velrange ffrange", "", false, -1, ""},  // 26
    {"motor", 14, Support::Supported, "ctrllimited forcelimited ctrlrange forcerange gear", "cranklength user group nsample interp delay damping armature", "", false, -1, ""},  // 27
    {"position", 14, Support::Supported, "ctrllimited forcelimited ctrlrange forcerange gear kp kv", "cranklength user group inheritrange dampratio timeconst nsample interp delay damping armature", "", false, -1, ""},  // 28
    {"velocity", 14, Support::Supported, "ctrllimited forcelimited ctrlrange forcerange gear kv", "cranklength user group nsample interp delay damping armature", "", false, -1, ""},  // 29
    {"intvelocity", 14, Support::Ignored, "", "ctrllimited forcelimited ctrlrange forcerange actrange gear cranklength user group kp inheritrange kv dampratio nsample interp delay actlimited damping armature", "", false, -1, ""},  // 30
    {"damper", 14, Support::Ignored, "", "forcelimited ctrlrange forcerange gear cranklength user group kv nsample interp delay damping armature", "", false, -1, ""},  // 31
    {"cylinder", 14, Support::Ignored, "", "ctrllimited forcelimited ctrlrange forcerange gear cranklength user group timeconst area diameter bias nsample interp delay damping armature", "", false, -1, ""},  // 32
    {"muscle", 14, Support::Ignored, "", "ctrllimited forcelimited ctrlrange forcerange gear cranklength user group timeconst range force scale lmin lmax vmax fpmax fvmax nsample interp delay damping armature", "", false, -1, ""},  // 33
    {"adhesion", 14, Support::Ignored, "", "forcelimited ctrlrange forcerange gain user group nsample interp delay", "", false, -1, ""},  // 34
    {"orientation", 14, Support::Ignored, "", "group nsample interp delay ctrlrange user forcelimited forcerange kp kv dampratio input", "", false, -1, "MuJoCo 3"},  // 35
    {"pid", 14, Support::Ignored, "", "group nsample interp delay ctrlrange user ctrllimited forcelimited posrange velrange ffrange forcerange inheritrange gear damping armature cranklength kp kv dampratio ki imax slewmax input", "", false, -1, "MuJoCo 3"},  // 36
    {"dcmotor", 14, Support::Ignored, "", "group nsample interp delay ctrlrange user ctrllimited gear damping armature cranklength motorconst resistance nominal saturation inductance cogging controller thermal lugre input", "", false, -1, "MuJoCo 3"},  // 37
    {"custom", 0, Support::Supported, "", "", "", false, -1, ""},  // 38
    {"numeric", 38, Support::Supported, "name size data", "", "", false, -1, "stored unread, as MuJoCo does"},  // 39
    {"text", 38, Support::Supported, "name data", "", "", false, -1, "maxsim: declarations"},  // 40
    {"tuple", 38, Support::Supported, "name", "", "", false, -1, "stored unread, as MuJoCo does"},  // 41
    {"element", 41, Support::Supported, "objtype objname prm", "", "", false, -1, "stored unread, as MuJoCo does"},  // 42
    {"asset", 0, Support::Supported, "", "", "", false, -1, ""},  // 43
    {"texture", 43, Support::Ignored, "", "name type file gridsize gridlayout fileright fileleft fileup filedown filefront fileback builtin rgb1 rgb2 mark markrgb random width height hflip vflip content_type nchannel colorspace", "", false, -1, "rendering"},  // 44
    {"hfield", 43, Support::Supported, "name file nrow ncol size elevation", "content_type", "", false, -1, ""},  // 45
    {"mesh", 43, Support::Supported, "name class file vertex face scale", "normal texcoord refpos refquat smoothnormal content_type maxhullvert inertia builtin params material", "", false, -1, ""},  // 46
    {"plugin", 46, Support::Ignored, "", "plugin instance", "", false, -1, "MuJoCo 3"},  // 47
    {"config", 47, Support::Ignored, "", "key value", "", false, -1, "MuJoCo 3"},  // 48
    {"skin", 43, Support::Ignored, "", "name file material rgba inflate vertex texcoord face group", "", false, -1, "rendering"},  // 49
    {"bone", 49, Support::Ignored, "", "body bindpos bindquat vertid vertweight", "", false, -1, ""},  // 50
    {"material", 43, Support::Supported, "name class rgba", "texture texrepeat texuniform emission specular shininess reflectance metallic roughness", "", false, -1, ""},  // 51
    {"rgb", 51, Support::Ignored, "", "texture", "", false, -1, "MuJoCo 3"},  // 52
    {"occlusion", 51, Support::Ignored, "", "texture", "", false, -1, "MuJoCo 3"},  // 53
    {"roughness", 51, Support::Ignored, "", "texture", "", false, -1, "MuJoCo 3"},  // 54
    {"metallic", 51, Support::Ignored, "", "texture", "", false, -1, "MuJoCo 3"},  // 55
    {"normal", 51, Support::Ignored, "", "texture", "", false, -1, "MuJoCo 3"},  // 56
    {"opacity", 51, Support::Ignored, "", "texture", "", false, -1, "MuJoCo 3"},  // 57
    {"emissive", 51, Support::Ignored, "", "texture", "", false, -1, "MuJoCo 3"},  // 58
    {"rgba", 51, Support::Ignored, "", "texture", "", false, -1, "MuJoCo 3"},  // 59
    {"orm", 51, Support::Ignored, "", "texture", "", false, -1, "MuJoCo 3"},  // 60
    {"layer", 51, Support::Ignored, "", "texture role", "", false, -1, "MuJoCo 3"},  // 61
    {"model", 43, Support::Ignored, "", "name file content_type", "", false, -1, "MuJoCo 3"},  // 62
    {"body", 190, Support::Supported, "name childclass pos quat mocap axisangle xyaxes zaxis euler", "user gravcomp sleep simple", "", true, -1, ""},  // 63
    {"inertial", 63, Support::Supported, "pos quat mass diaginertia axisangle xyaxes zaxis euler fullinertia", "", "", false, -1, ""},  // 64
    {"joint", 63, Support::Supported, "name class type pos axis limited stiffness range ref springref armature damping frictionloss", "group springdamper solreflimit solimplimit solreffriction solimpfriction margin user actuatorfrclimited actuatorfrcrange actuatorgravcomp", "", false, -1, ""},  // 65
    {"freejoint", 63, Support::Supported, "name", "group align", "", false, -1, ""},  // 66
    {"geom", 63, Support::Supported, "name class type contype conaffinity condim priority size material friction mass density margin fromto pos quat axisangle xyaxes zaxis euler mesh rgba group hfield", "shellinertia solmix solref solimp gap fitscale fluidshape fluidcoef user surfacevel adhesion", "", false, -1, ""},  // 67
    {"plugin", 67, Support::Ignored, "", "plugin instance", "", false, -1, "MuJoCo 3"},  // 68
    {"config", 68, Support::Ignored, "", "key value", "", false, -1, "MuJoCo 3"},  // 69
    {"site", 63, Support::Supported, "name class type pos quat size fromto axisangle xyaxes zaxis euler", "group material rgba user", "", false, -1, ""},  // 70
    {"camera", 63, Support::Ignored, "", "name class fovy ipd pos quat axisangle xyaxes zaxis euler mode target user orthographic resolution focal focalpixel principal principalpixel sensorsize projection output", "", false, -1, "rendering"},  // 71
    {"light", 63, Support::Ignored, "", "name class directional castshadow active pos dir attenuation cutoff exponent ambient diffuse specular mode target bulbradius type intensity range softness texture", "", false, -1, "rendering"},  // 72
    {"composite", 63, Support::Refused, "", "prefix type count spacing offset flatinertia solrefsmooth solimpsmooth vertex face initial curve size quat", "", false, -1, "would change the model"},  // 73
    {"joint", 73, Support::Refused, "", "kind group stiffness damping armature solreffix solimpfix limited range margin solreflimit solimplimit frictionloss solreffriction solimpfriction type axis", "", false, -1, ""},  // 74
    {"tendon", 73, Support::Refused, "", "kind group stiffness damping solreffix solimpfix limited range margin solreflimit solimplimit frictionloss solreffriction solimpfriction material rgba width", "", false, -1, ""},  // 75
    {"skin", 73, Support::Refused, "", "texcoord material group rgba inflate subgrid", "", false, -1, ""},  // 76
    {"geom", 73, Support::Refused, "", "type contype conaffinity condim group priority size material rgba friction mass density solmix solref solimp margin gap surfacevel adhesion", "", false, -1, ""},  // 77
    {"site", 73, Support::Refused, "", "group size material rgba", "", false, -1, ""},  // 78
    {"pin", 73, Support::Refused, "", "coord", "", false, -1, ""},  // 79
    {"plugin", 73, Support::Refused, "", "plugin instance", "", false, -1, "MuJoCo 3"},  // 80
    {"config", 80, Support::Refused, "", "key value", "", false, -1, "MuJoCo 3"},  // 81
    {"attach", 63, Support::Refused, "", "model body prefix frame", "", false, -1, "MuJoCo 3; would change the model"},  // 82
    {"plugin", 63, Support::Refused, "", "plugin instance", "", false, -1, "MuJoCo 3; would change the model"},  // 83
    {"config", 83, Support::Refused, "", "key value", "", false, -1, "MuJoCo 3"},  // 84
    {"flexcomp", 63, Support::Refused, "", "name type group dim count spacing radius rigid mass inertiabox scale file point element texcoord material rgba flatskin pos quat axisangle xyaxes zaxis euler dof cellcount origin", "", false, -1, "MuJoCo 3; would change the model"},  // 85
    {"edge", 85, Support::Refused, "", "equality solref solimp stiffness damping", "", false, -1, "MuJoCo 3"},  // 86
    {"contact", 85, Support::Refused, "", "contype conaffinity condim priority friction solmix solref solimp margin gap internal selfcollide activelayers passive", "", false, -1, "MuJoCo 3"},  // 87
    {"pin", 85, Support::Refused, "", "id range grid gridrange", "", false, -1, "MuJoCo 3"},  // 88
    {"plugin", 85, Support::Refused, "", "plugin instance", "", false, -1, "MuJoCo 3"},  // 89
    {"config", 89, Support::Refused, "", "key value", "", false, -1, "MuJoCo 3"},  // 90
    {"elasticity", 85, Support::Refused, "", "young poisson damping thickness elastic2d", "", false, -1, "MuJoCo 3"},  // 91
    {"contact", 0, Support::Supported, "", "", "", false, -1, ""},  // 92
    {"pair", 92, Support::Supported, "name class geom1 geom2 condim friction margin", "solref solimp gap solreffriction adhesion", "", false, -1, ""},  // 93
    {"exclude", 92, Support::Supported, "name body1 body2", "", "", false, -1, ""},  // 94
    {"equality", 0, Support::Supported, "", "", "", false, -1, ""},  // 95
    {"connect", 95, Support::Supported, "name class body1 body2 anchor active", "solref solimp", "site1 site2", false, -1, ""},  // 96
    {"weld", 95, Support::Supported, "name class body1 body2 relpose active", "anchor solref solimp torquescale", "site1 site2", false, -1, ""},  // 97
    {"joint", 95, Support::Supported, "name class joint1 joint2 polycoef active", "solref solimp", "", false, -1, ""},  // 98
    {"tendon", 95, Support::Supported, "name class tendon1 tendon2 polycoef active", "solref solimp", "", false, -1, ""},  // 99
    {"distance", 95, Support::Refused, "", "name class geom1 geom2 distance active solref solimp", "", false, -1, ""},  // 100
    {"flex", 95, Support::Refused, "", "name class flex active solref solimp", "", false, -1, "MuJoCo 3"},  // 101
    {"flexvert", 95, Support::Refused, "", "name class active solref solimp flex", "", false, -1, "MuJoCo 3"},  // 102
    {"flexstrain", 95, Support::Refused, "", "name class active solref solimp flex cell", "", false, -1, "MuJoCo 3"},  // 103
    {"tendon", 0, Support::Supported, "", "", "", false, -1, ""},  // 104
    {"spatial", 104, Support::Supported, "name class limited range springlength stiffness damping armature frictionloss", "group solreflimit solimplimit solreffriction solimpfriction width material margin rgba user actuatorfrclimited actuatorfrcrange", "", false, -1, ""},  // 105
    {"site", 105, Support::Supported, "site", "", "", false, -1, ""},  // 106
    {"geom", 105, Support::Supported, "geom sidesite", "", "", false, -1, ""},  // 107
    {"pulley", 105, Support::Supported, "divisor", "", "", false, -1, ""},  // 108
    {"fixed", 104, Support::Supported, "name class limited range springlength stiffness damping armature frictionloss", "group solreflimit solimplimit solreffriction solimpfriction margin user actuatorfrclimited actuatorfrcrange", "", false, -1, ""},  // 109
    {"joint", 109, Support::Supported, "joint coef", "", "", false, -1, ""},  // 110
    {"actuator", 0, Support::Supported, "", "", "", false, -1, ""},  // 111
    {"general", 111, Support::Supported, "name class ctrllimited forcelimited ctrlrange forcerange gear joint jointinparent dyntype gaintype biastype gainprm biasprm tendon", "group actlimited actrange lengthrange cranklength user slidersite cranksite site refsite body dynprm actdim actearly nsample interp delay damping armature input velrange ffrange", "", false, -1, ""},  // 112
    {"motor", 111, Support::Supported, "name class ctrllimited forcelimited ctrlrange forcerange gear joint jointinparent tendon", "group lengthrange cranklength user slidersite cranksite site refsite nsample interp delay damping armature", "", false, -1, ""},  // 113
    {"position", 111, Support::Supported, "name class ctrllimited forcelimited ctrlrange forcerange gear joint jointinparent kp kv tendon", "group lengthrange cranklength user slidersite cranksite site refsite inheritrange dampratio timeconst nsample interp delay damping armature", "", false, -1, ""},  // 114
    {"velocity", 111, Support::Supported, "name class ctrllimited forcelimited ctrlrange forcerange gear joint jointinparent kv tendon", "group lengthrange cranklength user slidersite cranksite site refsite nsample interp delay damping armature", "", false, -1, ""},  // 115
    {"intvelocity", 111, Support::Ignored, "", "name class group ctrllimited forcelimited ctrlrange forcerange actrange lengthrange gear cranklength user joint jointinparent tendon slidersite cranksite site refsite kp inheritrange kv dampratio nsample interp delay actlimited damping armature", "", false, -1, ""},  // 116
    {"damper", 111, Support::Ignored, "", "name class group forcelimited ctrlrange forcerange lengthrange gear cranklength user joint jointinparent tendon slidersite cranksite site refsite kv nsample interp delay damping armature", "", false, -1, ""},  // 117
    {"cylinder", 111, Support::Ignored, "", "name class group ctrllimited forcelimited ctrlrange forcerange lengthrange gear cranklength user joint jointinparent tendon slidersite cranksite site refsite timeconst area diameter bias nsample interp delay damping armature", "", false, -1, ""},  // 118
    {"muscle", 111, Support::Ignored, "", "name class group ctrllimited forcelimited ctrlrange forcerange lengthrange gear cranklength user joint jointinparent tendon slidersite cranksite timeconst range force scale lmin lmax vmax fpmax fvmax tausmooth nsample interp delay damping armature", "", false, -1, ""},  // 119
    {"adhesion", 111, Support::Ignored, "", "name class group forcelimited ctrlrange forcerange user body gain nsample interp delay", "", false, -1, ""},  // 120
    {"plugin", 111, Support::Ignored, "", "name class plugin instance group ctrllimited forcelimited actlimited ctrlrange forcerange actrange lengthrange gear cranklength joint jointinparent site actdim dyntype dynprm tendon cranksite slidersite user actearly nsample interp delay damping armature", "", false, -1, "MuJoCo 3"},  // 121
    {"config", 121, Support::Ignored, "", "key value", "", false, -1, "MuJoCo 3"},  // 122
    {"orientation", 111, Support::Ignored, "", "name class group nsample interp delay ctrlrange user forcelimited forcerange joint site refsite kp kv dampratio input", "", false, -1, "MuJoCo 3"},  // 123
    {"pid", 111, Support::Ignored, "", "name class group nsample interp delay ctrlrange user ctrllimited forcelimited posrange velrange ffrange forcerange inheritrange lengthrange gear damping armature cranklength joint jointinparent tendon slidersite cranksite site refsite kp kv dampratio ki imax slewmax input", "", false, -1, "MuJoCo 3"},  // 124
    {"dcmotor", 111, Support::Ignored, "", "name class group nsample interp delay ctrlrange user ctrllimited lengthrange gear damping armature cranklength joint jointinparent tendon slidersite cranksite site refsite motorconst resistance nominal saturation inductance cogging controller thermal lugre input", "", false, -1, "MuJoCo 3"},  // 125
    {"sensor", 0, Support::Supported, "", "", "", false, -1, ""},  // 126
    {"touch", 126, Support::Supported, "name site cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 127
    {"accelerometer", 126, Support::Supported, "name site cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 128
    {"velocimeter", 126, Support::Supported, "name site cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 129
    {"gyro", 126, Support::Supported, "name site cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 130
    {"force", 126, Support::Supported, "name site cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 131
    {"torque", 126, Support::Supported, "name site cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 132
    {"magnetometer", 126, Support::Supported, "name site cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 133
    {"rangefinder", 126, Support::Supported, "name site cutoff noise", "user nsample interp delay interval camera data", "", false, -1, ""},  // 134
    {"jointpos", 126, Support::Supported, "name joint cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 135
    {"jointvel", 126, Support::Supported, "name joint cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 136
    {"tendonpos", 126, Support::Supported, "name tendon cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 137
    {"tendonvel", 126, Support::Supported, "name tendon cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 138
    {"actuatorpos", 126, Support::Supported, "name actuator cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 139
    {"actuatorvel", 126, Support::Supported, "name actuator cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 140
    {"actuatorfrc", 126, Support::Supported, "name actuator cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 141
    {"ballquat", 126, Support::Supported, "name joint cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 142
    {"ballangvel", 126, Support::Supported, "name joint cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 143
    {"jointlimitpos", 126, Support::Supported, "name joint cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 144
    {"jointlimitvel", 126, Support::Supported, "name joint cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 145
    {"jointlimitfrc", 126, Support::Supported, "name joint cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 146
    {"tendonlimitpos", 126, Support::Supported, "name tendon cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 147
    {"tendonlimitvel", 126, Support::Supported, "name tendon cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 148
    {"tendonlimitfrc", 126, Support::Supported, "name tendon cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 149
    {"framepos", 126, Support::Supported, "name objtype objname reftype refname cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 150
    {"framequat", 126, Support::Supported, "name objtype objname reftype refname cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 151
    {"framexaxis", 126, Support::Supported, "name objtype objname reftype refname cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 152
    {"frameyaxis", 126, Support::Supported, "name objtype objname reftype refname cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 153
    {"framezaxis", 126, Support::Supported, "name objtype objname reftype refname cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 154
    {"framelinvel", 126, Support::Supported, "name objtype objname reftype refname cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 155
    {"frameangvel", 126, Support::Supported, "name objtype objname reftype refname cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 156
    {"framelinacc", 126, Support::Supported, "name objtype objname cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 157
    {"frameangacc", 126, Support::Supported, "name objtype objname cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 158
    {"subtreecom", 126, Support::Supported, "name body cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 159
    {"subtreelinvel", 126, Support::Supported, "name body cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 160
    {"subtreeangmom", 126, Support::Supported, "name body cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 161
    {"clock", 126, Support::Supported, "name cutoff noise", "user nsample interp delay interval", "", false, -1, ""},  // 162
    {"user", 126, Support::Ignored, "", "name objtype objname datatype needstage dim cutoff noise user", "", false, -1, ""},  // 163
    {"camprojection", 126, Support::Ignored, "", "name site camera cutoff noise user nsample interp delay interval", "", false, -1, "MuJoCo 3"},  // 164
    {"jointactuatorfrc", 126, Support::Supported, "name joint cutoff noise", "user nsample interp delay interval", "", false, -1, "MuJoCo 3"},  // 165
    {"distance", 126, Support::Ignored, "", "name geom1 geom2 body1 body2 cutoff noise user nsample interp delay interval", "", false, -1, "MuJoCo 3"},  // 166
    {"normal", 126, Support::Ignored, "", "name geom1 geom2 body1 body2 cutoff noise user nsample interp delay interval", "", false, -1, "MuJoCo 3"},  // 167
    {"fromto", 126, Support::Ignored, "", "name geom1 geom2 body1 body2 cutoff noise user nsample interp delay interval", "", false, -1, "MuJoCo 3"},  // 168
    {"plugin", 126, Support::Ignored, "", "name plugin instance cutoff objtype objname reftype refname user", "", false, -1, "MuJoCo 3"},  // 169
    {"config", 169, Support::Ignored, "", "key value", "", false, -1, "MuJoCo 3"},  // 170
    {"tendonactuatorfrc", 126, Support::Ignored, "", "name nsample interp delay interval cutoff noise user tendon", "", false, -1, "MuJoCo 3"},  // 171
    {"insidesite", 126, Support::Ignored, "", "name nsample interp delay interval cutoff noise user site objtype objname", "", false, -1, "MuJoCo 3"},  // 172
    {"contact", 126, Support::Ignored, "", "name nsample interp delay interval cutoff noise user geom1 geom2 body1 body2 subtree1 subtree2 site num data reduce", "", false, -1, "MuJoCo 3"},  // 173
    {"e_potential", 126, Support::Ignored, "", "name nsample interp delay interval cutoff noise user", "", false, -1, "MuJoCo 3"},  // 174
    {"e_kinetic", 126, Support::Ignored, "", "name nsample interp delay interval cutoff noise user", "", false, -1, "MuJoCo 3"},  // 175
    {"tactile", 126, Support::Ignored, "", "name geom mesh nsample interp delay interval user", "", false, -1, "MuJoCo 3"},  // 176
    {"keyframe", 0, Support::Supported, "", "", "", false, -1, ""},  // 177
    {"key", 177, Support::Supported, "name time qpos qvel ctrl", "act mpos mquat", "", false, -1, ""},  // 178
    {"extension", 0, Support::Ignored, "", "", "", false, -1, "MuJoCo 3"},  // 179
    {"plugin", 179, Support::Ignored, "", "plugin", "", false, -1, "MuJoCo 3"},  // 180
    {"instance", 180, Support::Ignored, "", "name", "", false, -1, "MuJoCo 3"},  // 181
    {"config", 181, Support::Ignored, "", "key value", "", false, -1, "MuJoCo 3"},  // 182
    {"deformable", 0, Support::Ignored, "", "", "", false, -1, "MuJoCo 3"},  // 183
    {"flex", 183, Support::Ignored, "", "name group dim radius material rgba flatskin body vertex element texcoord elemtexcoord node nodecoord cellcount dof", "", false, -1, "MuJoCo 3"},  // 184
    {"contact", 184, Support::Ignored, "", "contype conaffinity condim priority friction solmix solref solimp margin gap internal selfcollide activelayers passive", "", false, -1, "MuJoCo 3"},  // 185
    {"edge", 184, Support::Ignored, "", "stiffness damping", "", false, -1, "MuJoCo 3"},  // 186
    {"elasticity", 184, Support::Ignored, "", "young poisson damping thickness elastic2d", "", false, -1, "MuJoCo 3"},  // 187
    {"skin", 183, Support::Ignored, "", "name file material rgba inflate vertex texcoord face group", "", false, -1, "MuJoCo 3"},  // 188
    {"bone", 188, Support::Ignored, "", "body bindpos bindquat vertid vertweight", "", false, -1, "MuJoCo 3"},  // 189
    {"worldbody", 0, Support::Supported, "", "", "", false, 63, ""},  // 190
    {"frame", 63, Support::Supported, "name childclass pos quat axisangle xyaxes zaxis euler", "", "", false, 63, "MuJoCo 3"},  // 191
    {"replicate", 63, Support::Refused, "", "count offset euler sep", "", false, 63, "MuJoCo 3: would change the model"},  // 192
};
}  // namespace

const parse::Schema& mjcf_schema() {
  static const parse::Schema schema(kNodes, static_cast<int>(sizeof kNodes / sizeof kNodes[0]));
  return schema;
}

}  // namespace maxsim
